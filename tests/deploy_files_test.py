#!/usr/bin/python3
"""Static checks of docker/ where no container engine runs the images: the manifests parse and
say what a deployment needs, and the runtime image installs a package for every shared library
the built binary needs (from the installer's own -dev packages, resolved with dpkg here).

    deploy_files_test.py --source . --binary build/ingestd
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from polling import FAILURES as failures, check  # noqa: E402


def installer_packages(path, name="packages"):
    """The words of the installer's array `name` ("packages": the run set, "test_packages")."""
    text = open(path).read()
    block = re.search(r"^" + name + r"=\((.*?)\n\)", text, re.S | re.M).group(1)
    words = []
    for line in block.splitlines():
        words += line.split("#", 1)[0].split()
    return set(words)


def restricted_problems(pod, what):
    """The rules of the "restricted" Pod Security Standard that `pod` (a pod spec) breaks."""
    problems = []
    pod_sc = pod.get("securityContext", {})
    allowed_volumes = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                       "projected", "secret", "name"}
    for v in pod.get("volumes", []):
        if set(v) - allowed_volumes:
            problems.append(f"{what}: volume {v['name']} of a type the profile forbids")
    if pod.get("hostNetwork") or pod.get("hostPID") or pod.get("hostIPC"):
        problems.append(f"{what}: host namespaces")
    for c in pod.get("containers", []) + pod.get("initContainers", []):
        sc = c.get("securityContext", {})
        name = f"{what} container {c['name']}"
        if sc.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if "ALL" not in sc.get("capabilities", {}).get("drop", []) or sc.get("capabilities", {}).get("add"):
            problems.append(f"{name}: capabilities not dropped (ALL)")
        if sc.get("privileged"):
            problems.append(f"{name}: privileged")
        if sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot")) is not True:
            problems.append(f"{name}: runAsNonRoot is not true")
        if sc.get("runAsUser", pod_sc.get("runAsUser", 1)) == 0:
            problems.append(f"{name}: runAsUser 0")
        seccomp = sc.get("seccompProfile", pod_sc.get("seccompProfile", {})).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccompProfile {seccomp}, not RuntimeDefault")
        if sc.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{name}: the root filesystem is writable")
        if c.get("ports") and any(p.get("hostPort") for p in c["ports"]):
            problems.append(f"{name}: hostPort")
    return problems


def quantity_mib(q):
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024 * 1024}
    for u, f in units.items():
        if str(q).endswith(u):
            return float(str(q)[:-2]) * f
    return float(q) / (1 << 20)


def dockerfile_stages(path):
    """[(base image, [instructions])] with continuation lines joined."""
    stages, current = [], None
    logical = ""
    for raw in open(path).read().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        logical += line[:-1] + " " if line.endswith("\\") else line
        if line.endswith("\\"):
            continue
        instr, _, rest = logical.partition(" ")
        logical = ""
        if instr.upper() == "FROM":
            current = (rest.split()[0], [])
            stages.append(current)
        elif current is not None:
            current[1].append((instr.upper(), rest.strip()))
    return stages


def apt_packages(run_args):
    m = re.search(r"apt-get install ([^&;]*)", run_args)
    return {w for w in m.group(1).split() if not w.startswith("-")} if m else set()


def installed_depends():
    """package -> its Depends and Pre-Depends, for every package dpkg knows (one query)."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Depends}, ${Pre-Depends}\n"],
                         capture_output=True, text=True).stdout
    return dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)


def package_closure(roots):
    """Installed packages reachable from roots through Depends/Pre-Depends."""
    depends = installed_depends()
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for alt in depends.get(p, "").split(","):
            for choice in alt.split("|"):
                name = choice.strip().split(" ")[0].split(":")[0]
                if name in depends:
                    todo.append(name)
                    break
    return seen


def needed_packages(binary):
    """library soname -> Debian package, for each DT_NEEDED entry of the binary."""
    dyn = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    result = {}
    for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dyn):
        m = re.search(r"^\s*" + re.escape(soname) + r" \(libc6,x86-64.*?\) => (\S+)$", cache, re.M)
        owner = ""
        if m:
            real = subprocess.run(["readlink", "-f", m.group(1)], capture_output=True, text=True).stdout.strip()
            # usrmerge: dpkg may know the file under /lib or /usr/lib, by its soname or real name.
            candidates = {m.group(1), real}
            candidates |= {c[4:] for c in candidates if c.startswith("/usr/")} | {"/usr" + c for c in candidates}
            for path in sorted(candidates):
                owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True).stdout
                if owner:
                    break
        result[soname] = owner.split(":")[0] if owner else None
    return result


def secret_env(container, name):
    """Whether the container takes variable `name` from a Secret (never a literal value)."""
    e = next((e for e in container.get("env", []) if e["name"] == name), {})
    return "secretKeyRef" in e.get("valueFrom", {}) and "value" not in e


def check_storage(src, worker, gc_pod):
    """The object store is the default (credentials from a Secret); the filesystem store is
    the alternative, as patches that mount one volume in the workers and in gc alike."""
    gc = gc_pod["containers"][0]
    for c, who in ((worker, "workers"), (gc, "gc")):
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        check(str(env.get("INGEST_STORAGE_ROOT", "")).startswith("s3://"), f"k8s: the {who} use the object store")
        check(secret_env(c, "AWS_ACCESS_KEY_ID") and secret_env(c, "AWS_SECRET_ACCESS_KEY"),
              f"k8s: the {who}' S3 credentials come from a Secret")
        check(not any(m["mountPath"] == "/data/files" for m in c.get("volumeMounts", [])),
              f"k8s: the {who} need no shared volume with the object store")
    env_of = lambda c: {e["name"]: e for e in c.get("env", [])}
    check(env_of(worker)["INGEST_STORAGE_ROOT"] == env_of(gc)["INGEST_STORAGE_ROOT"], "k8s: gc reads the workers' bucket")
    dep = yaml.safe_load(open(f"{src}/docker/k8s/deployment-files.yaml"))["spec"]["template"]["spec"]
    gcp = yaml.safe_load(open(f"{src}/docker/k8s/gc-cronjob-files.yaml"))
    gcp = gcp["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    for pod, who in ((dep, "workers"), (gcp, "gc")):
        c = pod["containers"][0]
        env = env_of(c)
        check(env.get("INGEST_STORAGE_ROOT", {}).get("value") == "/data/files",
              f"k8s files variant: the {who} read /data/files")
        check(all(env.get(n, {}).get("$patch") == "delete" for n in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")),
              f"k8s files variant: the {who}' S3 credentials are removed")
        check({"name": "files", "mountPath": "/data/files"} in c.get("volumeMounts", []),
              f"k8s files variant: the {who} mount the volume at /data/files")
    check(dep["volumes"] == gcp["volumes"] and dep["volumes"][0].get("persistentVolumeClaim"),
          "k8s files variant: gc sees the workers' storage volume")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--binary", required=True, action="append", help="each executable the image ships")
    args = ap.parse_args()
    src = args.source

    # Dockerfile
    stages = dockerfile_stages(f"{src}/docker/Dockerfile")
    check(len(stages) >= 2, "Dockerfile is multi-stage")
    build, runtime = stages[0], stages[-1]
    check(all(s[0].startswith("debian:bookworm") for s in stages), "every stage is Debian 12 (bookworm)")
    build_runs = " ".join(a for i, a in build[1] if i == "RUN")
    check("scripts/install-deps.sh" in build_runs, "build stage installs with the project's own installer")
    check("ctest" in build_runs, "build stage runs the tests")
    runtime_runs = " ".join(a for i, a in runtime[1] if i == "RUN")
    runtime_pkgs = apt_packages(runtime_runs)
    check(not any(p.endswith("-dev") for p in runtime_pkgs), "runtime stage has no -dev packages")
    check("--no-install-recommends" in runtime_runs, "runtime stage installs without recommends")
    installer = installer_packages(f"{src}/scripts/install-deps.sh") | installer_packages(
        f"{src}/scripts/install-deps.sh", "test_packages")
    run_set = installer_packages(f"{src}/scripts/install-deps.sh")
    for tool in ("chromium", "clang", "prometheus", "libgtest-dev", "python3-selenium", "qpdf"):
        check(tool not in run_set, f"the installer's run set leaves out the test tool {tool}")
    run_worker = open(f"{src}/scripts/run-worker.sh").read()
    check(re.search(r"install-deps\.sh run\b", run_worker) is not None,
          "scripts/run-worker.sh installs only the run set")
    check(not any(p in runtime_pkgs for p in ("chromium", "clang", "prometheus", "redis-server", "qpdf")),
          "the runtime image has no test tools")
    ignored = {l.strip().strip("/") for l in open(f"{src}/.dockerignore").read().splitlines()
               if l.strip() and not l.startswith("#")}
    for path in (".git", "build", "data", "tests/s3/node_modules"):
        check(path in ignored, f".dockerignore keeps {path} out of the build context")
    for data in ("tesseract-ocr-eng", "tesseract-ocr-osd"):
        check(data in installer and data in runtime_pkgs, f"{data} in the installer and the runtime image")
    closure = package_closure(runtime_pkgs | {"libc6", "libstdc++6", "libgcc-s1"})
    installer_closure = package_closure(installer)
    needed = {}
    for binary in args.binary:
        needed.update(needed_packages(binary))
    copied = " ".join(a for i, a in runtime[1] if i == "COPY")
    for binary in args.binary:
        name = binary.rsplit("/", 1)[-1]
        check(f"/{name} " in copied + " " or copied.endswith(f"/{name}"), f"the runtime image has {name}")
    for soname, pkg in needed.items():
        check(pkg is not None and pkg in closure,
              f"{soname} ({pkg}) is installed in the runtime image")
        check(pkg is not None and pkg in installer_closure, f"{soname} ({pkg}) comes with the installer's packages")
    instr = dict((i, a) for i, a in runtime[1])
    user = instr.get("USER", "root")
    check(user not in ("root", "0"), f"runs as a non-root user ({user})")
    check(json.loads(instr.get("ENTRYPOINT", "[]")) == ["ingestd"], 'ENTRYPOINT ["ingestd"]')
    check(json.loads(instr.get("CMD", "[]")) == ["worker"], 'CMD ["worker"]')
    hc = instr.get("HEALTHCHECK", "")
    check("/healthz" in hc or "/dev/tcp" in hc, "HEALTHCHECK probes the HTTP endpoint")
    check("/dev/tcp" not in hc or "/bin/bash" in hc, "HEALTHCHECK uses bash where it needs /dev/tcp (sh is dash)")
    check("OMP_THREAD_LIMIT=1" in instr.get("ENV", ""), "OMP_THREAD_LIMIT=1 in the image's environment")

    # compose.yaml
    compose = yaml.safe_load(open(f"{src}/docker/compose.yaml"))
    services = compose["services"]
    redis = next(s for s in services.values() if str(s.get("image", "")).startswith("redis"))
    cmd = " ".join(redis.get("command", []))
    check("--appendonly yes" in cmd, "compose: Redis with AOF")
    check("--maxmemory-policy noeviction" in cmd, "compose: Redis with noeviction")
    workers = [s for s in services.values() if "build" in s or str(s.get("image", "")).startswith("ingestd")]
    replicas = sum(int(s.get("deploy", {}).get("replicas", 1)) for s in workers)
    check(replicas >= 2, f"compose: two workers ({replicas})")
    mounts = [{v.split(":")[0] for v in s.get("volumes", [])} for s in workers]
    check(workers and set.intersection(*mounts) and all(
        any(v.endswith(":/data/files") for v in s.get("volumes", [])) for s in workers),
        "compose: the workers share the storage volume at /data/files")
    for name, s in services.items():
        for p in s.get("ports", []):
            check(str(p).startswith("127.0.0.1:"), f"compose: {name} publishes {p} on loopback only")

    # Kubernetes
    docs = []
    for f in ("deployment.yaml", "keda-scaledobject.yaml"):
        docs += [d for d in yaml.safe_load_all(open(f"{src}/docker/k8s/{f}")) if d]
    dep = next(d for d in docs if d["kind"] == "Deployment")
    so = next(d for d in docs if d["kind"] == "ScaledObject")
    pod = dep["spec"]["template"]["spec"]
    c = next(c for c in pod["containers"] if c["name"] == "ingestd")
    env = {e["name"]: e for e in c.get("env", [])}
    check(c["livenessProbe"]["httpGet"]["path"] == "/healthz", "k8s: liveness on /healthz")
    check(c["readinessProbe"]["httpGet"]["path"] == "/readyz", "k8s: readiness on /readyz")
    grace = int(env.get("INGEST_SHUTDOWN_GRACE_S", {}).get("value", 25))
    check(int(pod.get("terminationGracePeriodSeconds", 30)) > grace,
          f"k8s: terminationGracePeriodSeconds {pod.get('terminationGracePeriodSeconds')} > drain time {grace}")
    req = c.get("resources", {}).get("requests", {})
    check("cpu" in req and "memory" in req, "k8s: CPU and memory requests")
    check(pod.get("securityContext", {}).get("runAsNonRoot") is True, "k8s: runAsNonRoot")
    stream = env.get("INGEST_STREAM", {}).get("value", "ingest:uploads")
    group = env.get("INGEST_GROUP", {}).get("value", "ingestd")
    init = " ".join(" ".join(i.get("command", []) + i.get("args", [])) for i in pod.get("initContainers", []))
    check(f"XGROUP CREATE {stream} {group}" in init and "MKSTREAM" in init,
          "k8s: the consumer group is created up front (init container)")
    check(so["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"], "KEDA: scales the Deployment")
    trig = so["spec"]["triggers"][0]
    meta = trig["metadata"]
    check(trig["type"] == "redis-streams", "KEDA: Redis Streams scaler")
    check("lagCount" in meta and "pendingEntriesCount" not in meta, "KEDA: lagCount mode")
    check(meta.get("stream") == stream and meta.get("consumerGroup") == group, "KEDA: same stream and group")
    addr_env = meta.get("addressFromEnv")
    check(addr_env is None or addr_env in env, f"KEDA: addressFromEnv {addr_env} is set in the container")
    for problem in restricted_problems(pod, "Deployment"):
        check(False, "k8s restricted profile: " + problem)
    scratch = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}.get("/tmp")
    check(scratch is not None and any(v["name"] == scratch and "emptyDir" in v for v in pod["volumes"]),
          "k8s: an emptyDir at /tmp for scratch (the root filesystem is read-only)")
    concurrency = int(env.get("INGEST_CONCURRENCY", {}).get("value", 2))
    job_mb = int(env.get("INGEST_JOB_MEMORY_MB", {}).get("value", 1024))
    need_mib = concurrency * (job_mb + 256) + 256
    limit = c.get("resources", {}).get("limits", {}).get("memory", "0")
    check(quantity_mib(limit) >= need_mib,
          f"k8s: memory limit {limit} holds {concurrency} helpers of {job_mb}+256 MiB and the worker ({need_mib} MiB)")
    job_timeout = int(env.get("INGEST_JOB_TIMEOUT_S", {}).get("value", 600))
    text = open(f"{src}/docker/k8s/deployment.yaml").read()
    check("INGEST_JOB_TIMEOUT_S" in text and "handed back" in text,
          f"k8s: the grace ({grace} s) is documented against INGEST_JOB_TIMEOUT_S ({job_timeout} s)")
    pdb = next((d for d in docs if d["kind"] == "PodDisruptionBudget"), None)
    check(pdb is not None and pdb["spec"]["selector"]["matchLabels"] == dep["spec"]["selector"]["matchLabels"]
          and ("maxUnavailable" in pdb["spec"] or "minAvailable" in pdb["spec"]),
          "k8s: a PodDisruptionBudget for the workers")
    gc = yaml.safe_load(open(f"{src}/docker/k8s/gc-cronjob.yaml"))
    gc_pod = gc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    gc_args = gc_pod["containers"][0]["args"]
    check(gc["kind"] == "CronJob" and gc_args[:2] == ["gc", "--grace"] and int(gc_args[2]) > 0,
          "k8s: a CronJob runs ingestd gc with a grace")
    check_storage(src, c, gc_pod)
    for problem in restricted_problems(gc_pod, "CronJob"):
        check(False, "k8s restricted profile: " + problem)

    if failures:
        print(f"{len(failures)} deploy-file checks failed", file=sys.stderr)
        return 1
    print("deploy files: all checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
