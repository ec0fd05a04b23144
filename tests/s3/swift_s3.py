#!/usr/bin/python3
"""A one-node OpenStack Swift with the s3api middleware on loopback, for the tests.

    swift_s3.py DIR PORT [SECRET]   configures a Swift in DIR (rings, devices, the four
                                    servers' files), runs it in the foreground with its S3
                                    API on 127.0.0.1:PORT, and stops it on SIGTERM.

Swift comes from Debian (swift-proxy, swift-account, swift-container, swift-object; see
scripts/install-deps.sh). s3api verifies every SigV4 signature against tempauth's user
`test:tester` whose key is SECRET (default `testing`), region `us-east-1`, so a wrong secret
is refused (403 SignatureDoesNotMatch), a wrong region too (400
AuthorizationHeaderMalformed), and a request dated more than 5 minutes off is refused (403
RequestTimeTooSkewed). Each server is a child process of this one; the caller stops the
process group. Writes DIR/ready once the proxy answers and every server listens.
With SWIFT_S3_PROXY_CLOCK set (a libfaketime offset such as `+1h`), the proxy's clock is
that far off (Debian's faketime), so every request looks skewed to it.
"""
import glob
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

SERVERS = ("account", "container", "object")
FAKETIME_LIB = (glob.glob("/usr/lib/*/faketime/libfaketime.so.1") or [""])[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def configure(root, proxy_port, secret):
    etc, node = os.path.join(root, "etc"), os.path.join(root, "node")
    os.makedirs(os.path.join(node, "d1"), exist_ok=True)
    os.makedirs(etc, exist_ok=True)
    write(os.path.join(etc, "swift.conf"),
          "[swift-hash]\nswift_hash_path_suffix = ingestd-tests\nswift_hash_path_prefix = ingestd\n"
          "[storage-policy:0]\nname = Policy-0\ndefault = yes\n")
    # No memcached: the cache middleware points at a closed port and Swift carries on without.
    write(os.path.join(etc, "memcache.conf"), "[memcache]\nmemcache_servers = 127.0.0.1:%d\n" % free_port())
    common = ("[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = %d\nworkers = 0\nmount_check = false\n"
              "swift_dir = %s\ndevices = %s\nlog_level = WARNING\n")
    ports = {}
    for name in SERVERS:
        ports[name] = free_port()
        write(os.path.join(etc, name + "-server.conf"),
              common % (ports[name], etc, node) +
              "[pipeline:main]\npipeline = %s-server\n[app:%s-server]\nuse = egg:swift#%s\n" % (name, name, name))
    write(os.path.join(etc, "proxy-server.conf"),
          common % (proxy_port, etc, node) +
          "[pipeline:main]\npipeline = catch_errors gatekeeper proxy-logging cache listing_formats "
          "s3api tempauth copy slo dlo proxy-logging proxy-server\n"
          "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n"
          "[filter:s3api]\nuse = egg:swift#s3api\nlocation = us-east-1\n"
          "[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = %s .admin\n"
          "[filter:cache]\nuse = egg:swift#memcache\n"
          "[filter:catch_errors]\nuse = egg:swift#catch_errors\n"
          "[filter:gatekeeper]\nuse = egg:swift#gatekeeper\n"
          "[filter:proxy-logging]\nuse = egg:swift#proxy_logging\n"
          "[filter:listing_formats]\nuse = egg:swift#listing_formats\n"
          "[filter:copy]\nuse = egg:swift#copy\n"
          "[filter:slo]\nuse = egg:swift#slo\n"
          "[filter:dlo]\nuse = egg:swift#dlo\n" % secret)
    from swift.common.ring import RingBuilder
    for name in SERVERS:
        builder = RingBuilder(8, 1, 1)
        builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": ports[name],
                         "device": "d1", "weight": 1.0})
        builder.rebalance()
        builder.get_ring().save(os.path.join(etc, name + ".ring.gz"))
    return etc, ports


def die_with_parent():
    """Swift's servers make sessions of their own (out of the caller's process group): each
    is killed by the kernel when this script's process dies, however it dies."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:
        sys.exit(1)  # the parent died before the line above


def serve(etc, name):
    """One server in this process, reading swift.conf from etc (not /etc/swift)."""
    die_with_parent()
    from swift.common import utils
    utils.set_swift_dir(etc)
    from swift.common.wsgi import run_wsgi
    sys.exit(run_wsgi(os.path.join(etc, name + "-server.conf"), name + "-server", verbose=True))


def listens(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def answers(port):
    try:
        urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=2)
    except urllib.error.HTTPError:
        return True  # any HTTP reply (403 for an anonymous listing): it is up
    except OSError:
        return False
    return True


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
        return
    root, port = sys.argv[1], int(sys.argv[2])
    secret = sys.argv[3] if len(sys.argv) > 3 else "testing"
    deadline = time.monotonic() + 30
    while listens(port) and time.monotonic() < deadline:
        time.sleep(0.1)  # a previous run's proxy on this port is still going down
    etc, ports = configure(root, port, secret)
    proxy_env = dict(os.environ)
    if os.environ.get("SWIFT_S3_PROXY_CLOCK"):
        proxy_env.update(LD_PRELOAD=FAKETIME_LIB, FAKETIME=os.environ["SWIFT_S3_PROXY_CLOCK"])
    children = [subprocess.Popen([sys.executable, __file__, "serve", etc, name],
                                 env=proxy_env if name == "proxy" else None)
                for name in SERVERS + ("proxy",)]

    def stop(*_):
        for c in children:
            c.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    deadline = time.monotonic() + 60
    while not (answers(port) and all(listens(p) for p in ports.values())):
        if time.monotonic() > deadline or any(c.poll() is not None for c in children):
            print("swift_s3: the proxy did not start", file=sys.stderr)
            stop()
        time.sleep(0.1)  # the poll interval, until the proxy answers
    write(os.path.join(root, "ready"), str(port))
    while all(c.poll() is None for c in children):
        time.sleep(0.5)
    stop()


if __name__ == "__main__":
    main()
