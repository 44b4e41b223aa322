from django.urls import path, re_path

from leaguelog import api

# Served at the site's root (/log/...), where the C2SP specs expect a log's files, and under /api/.
log_urlpatterns = [
    path("log/checkpoint", api.checkpoint, name="log-checkpoint"),
    path("log/key", api.key, name="log-key"),
    re_path(r"^log/tile/(?P<path>[0-9a-z./]{1,200})$", api.tile, name="log-tile"),
]

urlpatterns = [
    path("log/proofs/inclusion", api.InclusionProofApi.as_view(), name="log-inclusion-proof"),
    path("log/proofs/consistency", api.ConsistencyProofApi.as_view(), name="log-consistency-proof"),
    path("log/entries", api.EntryFindApi.as_view(), name="log-entry-find"),
    path("log/cosignatures", api.CosignatureAddApi.as_view(), name="log-cosignature-add"),
    path("log/entries/<int:index>", api.EntryApi.as_view(), name="log-entry"),
]
