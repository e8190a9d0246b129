"""Drives a cluster with the official Python client (Debian's python3-kubernetes), the way a new
user would, and prints what it saw as one JSON document for test/e2e/clients.test.ts to check.

    /usr/bin/python3 python_client.py KUBECONFIG NAMESPACE

The namespace must exist and Pacer's CRD must be installed; Pacer's controller may run or not.
Every step is recorded even when it fails: a failure is {"error": {"status", "reason", "message"}}.
"""

import json
import sys
import threading

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "pacer.dev", "v1alpha1", "deployments"


def deployment(name, replicas, image):
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


def failure(e):
    body = {}
    try:
        body = json.loads(e.body or "{}")
    except ValueError:
        pass
    return {"error": {"status": e.status, "reason": body.get("reason"), "message": body.get("message")}}


def step(results, name, fn):
    try:
        results[name] = fn()
    except ApiException as e:
        results[name] = failure(e)


def main(kubeconfig, namespace):
    config.load_kube_config(config_file=kubeconfig)
    crs = client.CustomObjectsApi()
    apps = client.AppsV1Api()
    results = {}

    def create():
        d = crs.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, deployment("py", 2, "nginx:1"))
        return {"name": d["metadata"]["name"], "generation": d["metadata"]["generation"],
                "defaultedStrategy": d["spec"]["strategy"]["type"]}

    step(results, "create", create)

    # A watch from the list's resourceVersion: the client sends watch=True. It must see the next
    # changes (and not end at once with a plain list).
    listed = crs.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)
    results["list"] = sorted(i["metadata"]["name"] for i in listed["items"])
    seen = []
    w = watch.Watch()

    def follow():
        for ev in w.stream(crs.list_namespaced_custom_object, GROUP, VERSION, namespace, PLURAL,
                           resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=20):
            obj = ev["object"]
            seen.append([ev["type"], obj["metadata"]["name"], obj["spec"]["template"]["spec"]["containers"][0]["image"]])
            if ev["type"] == "DELETED":
                w.stop()

    watcher = threading.Thread(target=follow)
    watcher.start()

    def patch():
        body = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}}
        d = crs.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "py", body)
        return {"image": d["spec"]["template"]["spec"]["containers"][0]["image"], "generation": d["metadata"]["generation"]}

    step(results, "patch", patch)

    def scale():
        before = crs.get_namespaced_custom_object_scale(GROUP, VERSION, namespace, PLURAL, "py")
        after = crs.patch_namespaced_custom_object_scale(GROUP, VERSION, namespace, PLURAL, "py", {"spec": {"replicas": 4}})
        d = crs.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "py")
        return {"kind": before["kind"], "before": before["spec"]["replicas"], "after": after["spec"]["replicas"],
                "stored": d["spec"]["replicas"]}

    step(results, "scale", scale)

    step(results, "getMissing", lambda: crs.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "nope"))
    step(results, "createInvalid", lambda: crs.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, deployment("bad", -1, "nginx:1")))
    step(results, "createDuplicate", lambda: crs.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, deployment("py", 1, "nginx:1")))
    step(results, "replicaSetScaleMissing", lambda: apps.read_namespaced_replica_set_scale("nope", namespace))

    def delete():
        s = crs.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "py")
        return {"kind": s.get("kind")}

    step(results, "delete", delete)
    watcher.join(30)
    results["watched"] = seen
    json.dump(results, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
