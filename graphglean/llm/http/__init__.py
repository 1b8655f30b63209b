"""HTTP/1.1 on trio sockets: our own keep-alive pool as an httpx transport, its message reader and writer."""
