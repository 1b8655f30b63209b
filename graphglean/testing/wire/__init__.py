"""The fake server's wire: HTTP/1.1 requests read off plain sockets, connections accepted, and request deadlines
kept to a tenth of a millisecond (a timerfd)."""
