#!/usr/bin/env python3
"""A loopback TCP proxy for the object-store fault tests.

Relays 127.0.0.1:LISTEN to 127.0.0.1:UPSTREAM. The first whole-object GET (no Range header)
has its reply cut after --cut-after bytes: --on-cut runs (a shell command, e.g. one that
replaces the object), then both sockets are closed. Every request line and Range header is logged to
--log, so a test can see the ranged GET that resumed the download.
"""
import argparse
import socket
import subprocess
import threading

lock = threading.Lock()
state = {"armed": True}


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


def serve(client, args):
    upstream = socket.create_connection(("127.0.0.1", args.upstream))
    conn = {}
    threading.Thread(target=pump_requests, args=(client, upstream, conn, args), daemon=True).start()
    pump_replies(client, upstream, conn, args)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--listen", type=int, required=True)
    p.add_argument("--upstream", type=int, required=True)
    p.add_argument("--cut-after", type=int, required=True)
    p.add_argument("--on-cut", default="")
    p.add_argument("--log", required=True)
    args = p.parse_args()
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
