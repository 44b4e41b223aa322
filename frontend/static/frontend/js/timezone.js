// The reader's time zone, for the times the server writes into pages (server.middleware.TimeZoneMiddleware).
// A file, not an inline script: the Content-Security-Policy allows no inline script.
document.cookie = "tz=" + (Intl.DateTimeFormat().resolvedOptions().timeZone || "") + "; path=/; max-age=31536000; samesite=lax";
