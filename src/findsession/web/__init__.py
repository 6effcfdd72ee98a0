"""The local web page: search, read and browse the index in a browser.

An interface like the CLI: it calls `findsession.api` and answers with the JSON the
CLI's `--json` prints (`findsession.jsonout`), so the page and the command line cannot
drift. `guard` keeps it to this user (a random token per start, the Host header, a
strict Content-Security-Policy), `app` holds the routes, `server` runs it on 127.0.0.1,
`static/` is the page itself: plain ES modules with no build step.
"""
