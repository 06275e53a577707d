#!/usr/bin/env python3
"""Reads a streaming list (sendInitialEvents) of Table rows straight from kubelive-sim
until the end-of-initial-events bookmark; prints bytes, seconds and socket reads.

usage: watch_reads.py PORT  (the sim: kubelive-sim serve --port PORT --objects N --churn 0)
"""
import socket
import sys
import time

PATH = ("/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
        "&resourceVersionMatch=NotOlderThan&includeObject=Metadata")
ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(f"GET {PATH} HTTP/1.1\r\nHost: sim\r\nUser-Agent: kubelive\r\nAccept: {ACCEPT}\r\n\r\n".encode())
t0 = time.time()
n = reads = 0
tail = b""
while True:
    b = s.recv(1 << 20)
    if not b:
        break
    n += len(b)
    reads += 1
    if b"initial-events-end" in tail + b:
        break
    tail = b[-64:]
print(f"{n} bytes {time.time() - t0:.2f} s {reads} reads")
