"""Where Redis is: one URL, or the Sentinels' master (the failover itself: tests/e2e/test_redis_failover.py)."""
from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from server.redis_clients import RedisLocation, sentinels_parsed

SENTINELS = [("10.0.0.1", 26379), ("::1", 26380)]


def test_it_reads_a_list_of_sentinels():
    assert sentinels_parsed(" 10.0.0.1:26379, [::1]:26380 ,") == SENTINELS
    assert sentinels_parsed("") == []


@pytest.mark.parametrize("text", ["sentinel-a", "sentinel-a:", ":26379", "sentinel-a:port"])
def test_it_refuses_a_sentinel_without_host_or_port(text):
    with pytest.raises(ImproperlyConfigured):
        sentinels_parsed(text)


def test_without_sentinels_every_user_gets_the_url_as_before():
    where = RedisLocation("redis://cache:6379/1")
    assert where.channel_layer_host() == "redis://cache:6379/1"
    assert where.celery_broker() == ("redis://cache:6379/1", {})


def test_sentinels_win_over_the_url_and_name_the_service_and_database():
    where = RedisLocation("redis://cache:6379/1", SENTINELS, "league", 4)
    host = where.channel_layer_host()
    assert isinstance(host, dict)
    assert (host["sentinels"], host["master_name"], host["db"]) == (SENTINELS, "league", 4)
    url, options = where.celery_broker()
    assert url == "sentinel://10.0.0.1:26379/4;sentinel://[::1]:26380/4"
    assert options["master_name"] == "league"
