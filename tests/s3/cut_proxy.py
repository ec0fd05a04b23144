#!/usr/bin/env python3
"""A loopback TCP proxy for the object-store fault tests.

Relays 127.0.0.1:LISTEN to 127.0.0.1:UPSTREAM. The first whole-object GET (no Range header)
has its reply cut after --cut-after bytes: --on-cut runs (a shell command, e.g. one that
replaces the object), then both sockets are closed. Every request line and Range header is logged to
--log, so a test can see the ranged GET that resumed the download.

With --slow-down N, the first N requests (every request when N is negative) are answered by the
proxy itself with S3's throttling reply, 503 SlowDown (logged "503 <request line>"), and the
connection is closed; later ones are relayed.
"""
import argparse
import socket
import subprocess
import threading

lock = threading.Lock()
state = {"armed": True, "slow_down": 0}
SLOW_DOWN = (b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nConnection: close\r\n"
             b"Content-Length: %d\r\n\r\n%s")
SLOW_DOWN_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                  b"<Message>Please reduce your request rate.</Message></Error>")


def log(path, line):
    with lock, open(path, "a") as f:
        f.write(line + "\n")


def chunks(sock):
    while True:
        data = sock.recv(65536)
        if not data:
            return
        yield data


def pump_requests(client, upstream, conn, args):
    try:
        for data in chunks(client):
            text = data[:4096].decode("latin-1")
            if text[:4] in ("GET ", "HEAD", "PUT "):
                ranged = [l for l in text.split("\r\n") if l.lower().startswith("range:")]
                log(args.log, text.split("\r\n")[0] + (" " + ranged[0] if ranged else ""))
                with lock:
                    if text.startswith("GET ") and not ranged and state["armed"]:
                        state["armed"] = False
                        conn["cut"] = args.cut_after
            upstream.sendall(data)
    except OSError:
        pass
    finally:
        for s in (client, upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def pump_replies(client, upstream, conn, args):
    try:
        for data in chunks(upstream):
            cut = conn.get("cut")
            if cut is not None and len(data) >= cut:
                client.sendall(data[:cut])
                if args.on_cut:  # before the client sees the drop, so its resume meets the change
                    subprocess.run(args.on_cut, shell=True, check=False)
                client.shutdown(socket.SHUT_RDWR)
                upstream.close()
                client.close()
                log(args.log, "CUT")
                return
            if cut is not None:
                conn["cut"] = cut - len(data)
            client.sendall(data)
    except OSError:
        pass
    finally:
        try:
            client.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def read_head(client):
    """The first request's head and whatever else has arrived; None when the client left."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = client.recv(65536)
        if not more:
            return None
        data += more
    return data


def slow_down(client, data, args):
    """Answers the request in `data` with 503 SlowDown once its body (unless it waits for
    100-continue) has arrived, then closes the connection."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    if fields.get("expect", "").lower() != "100-continue":
        want = int(fields.get("content-length", "0"))
        while len(body) < want:
            more = client.recv(65536)
            if not more:
                break
            body += more
    log(args.log, "503 " + lines[0])
    client.sendall(SLOW_DOWN % (len(SLOW_DOWN_BODY), SLOW_DOWN_BODY))
    client.close()


def serve(client, args):
    first = b""
    if args.slow_down != 0:
        first = read_head(client)
        if first is None:
            client.close()
            return
        with lock:
            answer = state["slow_down"] != 0
            if state["slow_down"] > 0:
                state["slow_down"] -= 1
        if answer:
            slow_down(client, first, args)
            return
    upstream = socket.create_connection(("127.0.0.1", args.upstream))
    if first:
        upstream.sendall(first)
    conn = {}
    threading.Thread(target=pump_requests, args=(client, upstream, conn, args), daemon=True).start()
    pump_replies(client, upstream, conn, args)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--listen", type=int, required=True)
    p.add_argument("--upstream", type=int, required=True)
    p.add_argument("--cut-after", type=int, default=1 << 62)
    p.add_argument("--slow-down", type=int, default=0)
    p.add_argument("--on-cut", default="")
    p.add_argument("--log", required=True)
    args = p.parse_args()
    state["slow_down"] = args.slow_down
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.listen))
    server.listen(16)
    log(args.log, "LISTENING")
    while True:
        client, _ = server.accept()
        threading.Thread(target=serve, args=(client, args), daemon=True).start()


if __name__ == "__main__":
    main()
