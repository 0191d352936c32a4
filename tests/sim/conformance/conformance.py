#!/usr/bin/env python3
"""Drives kprov-sim with the official Kubernetes clients, as users' CI would: the Python client
(Debian's python3-kubernetes) and kubectl 1.20 (Debian's kubernetes-client), over HTTP and
HTTPS. Exit 0 when every check passed, 1 on a failure, 77 (ctest's SKIP_RETURN_CODE) when a
client is missing outside CI; under KPROV_CI=1 a missing client is a failure."""

import argparse
import base64
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
GROUP, VERSION, PLURAL = "core.gardener.cloud", "v1beta1", "shoots"
NS = "garden-dev"
CONFIRM = "confirmation.gardener.cloud/deletion"
KUBECTL_120 = [
    os.environ.get("KPROV_KUBECTL_120", ""),
    "/opt/kubernetes-client/usr/bin/kubectl",  # scripts/install-deps unpacks it here
    "/usr/bin/kubectl",
    shutil.which("kubectl") or "",
]


def missing(what):
    """A client is not installed: skip outside CI, fail in CI."""
    if os.environ.get("KPROV_CI") == "1":
        print(f"FAIL: {what} (KPROV_CI=1: the conformance test must run)")
        sys.exit(1)
    print(f"SKIP: {what}")
    sys.exit(SKIP)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def expect(self, ok, what):
        """Counts a check; `what` may end with the client's output, shown in full on failure."""
        if ok:
            self.passed += 1
            print(f"  ok   {what.splitlines()[0][:120]}")
        else:
            self.failed.append(what)
            print(f"  FAIL {what}")
        return ok


def find_kubectl_120():
    for path in KUBECTL_120:
        if not path or not os.access(path, os.X_OK):
            continue
        out = subprocess.run([path, "version", "--client", "-o", "json"], capture_output=True,
                             text=True, check=False).stdout
        try:
            if json.loads(out)["clientVersion"]["minor"] == "20":
                return path
        except (ValueError, KeyError):
            continue
    return None


class Sim:
    """kprov-sim started as a subprocess; its URL is the first line of its stdout."""

    def __init__(self, binary, tmp, tls):
        self.kubeconfig = os.path.join(tmp, "garden-tls.yaml" if tls else "garden.yaml")
        args = [binary, "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig,
                "--project", "dev", "--create-seconds", "0.3", "--reconcile-seconds", "0.3",
                "--delete-seconds", "0.3", "--bookmark-seconds", "1"]
        if tls:
            args.append("--tls")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError("kprov-sim printed no URL")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def shoot_from_plan(kprov, example):
    """The Shoot that `kprov plan -f <example> -o json` prints (alone or inside a List)."""
    # The project gives the namespace garden-dev; the tenant becomes the account label.
    env = dict(os.environ, APP_GARDENER_PROJECT="dev", KPROV_TENANT="conformance-ga")
    out = subprocess.run([kprov, "plan", "-f", example, "-o", "json"], capture_output=True,
                         text=True, check=True, env=env).stdout
    doc = json.loads(out)
    if doc.get("kind") == "List":
        doc = next(i for i in doc["items"] if i.get("kind") == "Shoot")
    doc["metadata"]["namespace"] = NS
    return doc


def named(shoot, name, labels=None):
    s = copy.deepcopy(shoot)
    s["metadata"]["name"] = name
    s["metadata"].pop("resourceVersion", None)
    if labels:
        s["metadata"].setdefault("labels", {}).update(labels)
    return s


def python_checks(c, sim, shoot):
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException

    api_client = config.new_client_from_config(config_file=sim.kubeconfig)
    co = client.CustomObjectsApi(api_client)

    def status_of(call):
        try:
            call()
            return 200
        except ApiException as e:
            return e.status

    # dryRun=All: validated, answered, not stored.
    dry = co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, named(shoot, "py-a"),
                                             dry_run="All")
    c.expect(dry["metadata"]["name"] == "py-a", "python: dryRun=All create answers the object")
    c.expect(status_of(lambda: co.get_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "py-a")) == 404, "python: dryRun=All stored nothing")

    for name, team in (("py-a", "x"), ("py-b", "x"), ("py-c", "y")):
        co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL,
                                           named(shoot, name, {"team": team}))

    # list pages with limit/continue
    names, token, pages = [], None, 0
    while True:
        page = co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, limit=1,
                                                _continue=token)
        names += [i["metadata"]["name"] for i in page["items"]]
        pages += 1
        token = page["metadata"].get("continue")
        if not token:
            break
    c.expect(sorted(names) == ["py-a", "py-b", "py-c"] and pages == 3,
             f"python: limit=1 pages through every shoot ({names}, {pages} pages)")

    by_label = co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, label_selector="team=x")
    c.expect(sorted(i["metadata"]["name"] for i in by_label["items"]) == ["py-a", "py-b"],
             "python: label selector")
    by_field = co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL,
                                                field_selector="metadata.name=py-c")
    c.expect([i["metadata"]["name"] for i in by_field["items"]] == ["py-c"],
             "python: field selector")

    # watch from a resourceVersion (the client sends watch=True)
    rv = co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)["metadata"]["resourceVersion"]
    seen = []

    def collect():
        w = watch.Watch()
        for ev in w.stream(co.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL,
                           resource_version=rv, field_selector="metadata.name=py-b",
                           timeout_seconds=5):
            seen.append((ev["type"], ev["object"]["metadata"]["annotations"].get("step")))
            if ("MODIFIED", "merge") in seen:
                w.stop()

    t = threading.Thread(target=collect)
    t.start()
    time.sleep(0.3)

    # merge patch (what the client sends for custom objects)
    co.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "py-b",
                                      {"metadata": {"annotations": {"step": "merge"}}})
    t.join(timeout=10)
    c.expect(("MODIFIED", "merge") in seen,
             f"python: watch (watch=True) from resourceVersion sees the patch: {seen}")

    # JSON patch, sent through the generic call_api with its media type
    ops = [{"op": "replace", "path": "/spec/provider/workers/0/maximum", "value": 7}]
    patched = api_client.call_api(
        f"/apis/{GROUP}/{VERSION}/namespaces/{NS}/{PLURAL}/py-b", "PATCH", body=ops,
        header_params={"Content-Type": "application/json-patch+json", "Accept": "application/json"},
        response_type="object", auth_settings=["BearerToken"], _return_http_data_only=True)
    c.expect(patched["spec"]["provider"]["workers"][0]["maximum"] == 7, "python: JSON patch")

    # a replace with a stale resourceVersion is a conflict
    old = co.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "py-c")
    co.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "py-c",
                                      {"metadata": {"annotations": {"step": "newer"}}})
    c.expect(status_of(lambda: co.replace_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "py-c", old)) == 409, "python: stale replace is 409")

    # the deletion-confirmation rule
    c.expect(status_of(lambda: co.delete_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "py-c")) == 403, "python: delete without confirmation is 403")
    co.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "py-c",
                                      {"metadata": {"annotations": {CONFIRM: "true"}}})
    c.expect(status_of(lambda: co.delete_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "py-c")) == 200, "python: confirmed delete")

    # adminkubeconfig, then the runtime cluster through it with the typed core client
    deadline = time.time() + 20
    while time.time() < deadline:
        s = co.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "py-a")
        if s.get("status", {}).get("lastOperation", {}).get("state") == "Succeeded":
            break
        time.sleep(0.2)
    req = {"apiVersion": "authentication.gardener.cloud/v1alpha1",
           "kind": "AdminKubeconfigRequest", "spec": {"expirationSeconds": 600}}
    akc = api_client.call_api(
        f"/apis/{GROUP}/{VERSION}/namespaces/{NS}/{PLURAL}/py-a/adminkubeconfig", "POST",
        body=req, header_params={"Content-Type": "application/json", "Accept": "application/json"},
        response_type="object", auth_settings=["BearerToken"], _return_http_data_only=True)
    kubeconfig = base64.b64decode(akc["status"]["kubeconfig"]).decode()
    c.expect("server: " in kubeconfig, "python: adminkubeconfig returns a kubeconfig")
    path = sim.kubeconfig + ".py-a.yaml"
    with open(path, "w") as f:
        f.write(kubeconfig)
    core = client.CoreV1Api(config.new_client_from_config(config_file=path))
    core.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="conformance"), data={"k": "v"}))
    cms = core.list_namespaced_config_map("default", field_selector="metadata.name=conformance")
    c.expect([cm.data for cm in cms.items] == [{"k": "v"}],
             "python: typed core client on the runtime cluster")


def kubectl_checks(c, sim, kubectl, shoot, tmp):
    env = dict(os.environ, KUBECONFIG=sim.kubeconfig, HOME=tmp)

    def run(*args, timeout=60):
        p = subprocess.run([kubectl, *args], capture_output=True, text=True, env=env,
                           timeout=timeout, check=False)
        return p.returncode, p.stdout + p.stderr

    path = os.path.join(tmp, "shoot.json")
    with open(path, "w") as f:
        json.dump(named(shoot, "kc-a"), f)
    code, out = run("apply", "-f", path)
    c.expect(code == 0 and "created" in out, f"kubectl: apply -f with validation: {out.strip()}")

    # Client-side validation reads the sim's OpenAPI: a misspelt field never reaches the server.
    typo = named(shoot, "kc-typo")
    typo["spec"]["provider"]["workers"][0]["maximumm"] = 3
    with open(path, "w") as f:
        json.dump(typo, f)
    code, out = run("apply", "-f", path)
    c.expect(code != 0 and "error validating" in out and "maximumm" in out,
             f"kubectl: validation refuses an unknown field: {out.strip()}")

    changed = named(shoot, "kc-a")
    changed["spec"]["provider"]["workers"][0]["maximum"] = 9
    with open(path, "w") as f:
        json.dump(changed, f)
    code, out = run("apply", "-f", path)
    code2, got = run("get", "shoot", "kc-a", "-o", "jsonpath={.spec.provider.workers[0].maximum}")
    c.expect(code == 0 and got.strip() == "9", f"kubectl: second apply patches: {out.strip()}")

    code, out = run("explain", "shoot.spec.provider.workers")
    c.expect(code == 0 and "worker pools of the cluster" in out and "maxSurge" in out,
             f"kubectl: explain shoot.spec.provider.workers: {out.strip()[:200]}")

    watcher = subprocess.Popen([kubectl, "get", "shoots", "-w"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env)
    time.sleep(1.5)
    code, out = run("patch", "shoot", "kc-a", "--type", "merge", "-p",
                    '{"spec":{"hibernation":{"enabled":true}}}')
    c.expect(code == 0 and "patched" in out, f"kubectl: patch --type merge: {out.strip()}")
    time.sleep(1.5)
    watcher.terminate()
    watched = watcher.communicate(timeout=10)[0]
    lines = [l for l in watched.splitlines() if l.startswith("kc-a")]
    c.expect(len(lines) >= 2 and "Hibernating" in watched,
             f"kubectl: get -w prints the change:\n{watched}")

    code, out = run("delete", "shoot", "kc-a", "--wait=false")
    c.expect(code != 0 and "Forbidden" in out, f"kubectl: delete unconfirmed is refused: {out.strip()}")
    code, out = run("annotate", "shoot", "kc-a", f"{CONFIRM}=true")
    c.expect(code == 0, f"kubectl: annotate: {out.strip()}")
    code, out = run("delete", "shoot", "kc-a", "--timeout=30s")
    code2, _ = run("get", "shoot", "kc-a")
    c.expect(code == 0 and "deleted" in out and code2 != 0,
             f"kubectl: confirmed delete waits until it is gone: {out.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--kprov", required=True)
    ap.add_argument("--example", required=True)
    args = ap.parse_args()

    try:
        import kubernetes  # noqa: F401
    except ImportError:
        missing(f"python3-kubernetes is not installed for {sys.executable}")
    kubectl = find_kubectl_120()
    if not kubectl:
        missing("kubectl 1.20 (kubernetes-client) not found; scripts/install-deps installs it")

    shoot = shoot_from_plan(args.kprov, args.example)
    c = Checks()
    for tls in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            sim = Sim(args.sim, tmp, tls)
            print(f"== {'HTTPS' if tls else 'HTTP'} {sim.url}, kubectl {kubectl}")
            try:
                python_checks(c, sim, shoot)
                kubectl_checks(c, sim, kubectl, shoot, tmp)
            except Exception as e:  # a client error mid-way: report it as a failure
                c.expect(False, f"unexpected {type(e).__name__}: {e}")
            finally:
                sim.stop()
    print(f"{c.passed} passed, {len(c.failed)} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
