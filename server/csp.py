"""Where browsers report what the Content-Security-Policy refused (settings.CONTENT_SECURITY_POLICY).

The policy allows scripts, styles, fonts, images and connections from this site only, and no
inline script or style at all, so a mistake that let a person's text into a page as markup
would be refused by the browser, not run. Each refusal is reported here and logged at WARNING
(`server.csp`): a report means a page of ours broke the policy, or someone tried to inject.
Anyone can post a report, so a report is bounded, throttled per address, and logged as data.
"""
from __future__ import annotations

import json
import logging

from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from server.errors import error_response
from server.limits import throttle_wait

log = logging.getLogger(__name__)

# What a report's fields may add to the log line: enough to find the page and the rule, no more.
_FIELDS = ("document-uri", "violated-directive", "effective-directive", "blocked-uri", "source-file", "line-number")
_FIELD_CHARACTERS = 300


@csrf_exempt  # browsers send reports without the page's token, and a report changes nothing
@require_POST
def csp_report(request):
    """Logs one violation report (the `application/csp-report` body browsers send); 204."""
    wait = throttle_wait(request, "csp_report")
    if wait is not None:
        message = ngettext("Too many requests: try again in %(wait)s second.",
                           "Too many requests: try again in %(wait)s seconds.", wait) % {"wait": wait}
        return error_response("throttled", message, headers={"Retry-After": str(wait)})
    try:
        report = json.loads(request.body).get("csp-report")
    except (ValueError, AttributeError):
        report = None
    if not isinstance(report, dict):
        return error_response("malformed_json", _("The body is not a Content-Security-Policy report in JSON."))
    fields = {name: str(report.get(name, ""))[:_FIELD_CHARACTERS] for name in _FIELDS}
    log.warning("content security policy violation: %s", json.dumps(fields, sort_keys=True))
    return HttpResponse(status=204)
