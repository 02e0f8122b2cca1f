"""Which task of which cluster a process is, as the cluster managers set it: the TF_CONFIG
Kubeflow's TFJob operator gives each pod of docs/tfjob.yaml, and the SLURM_* variables of
an srun step; and one line for what MultiWorkerMirroredStrategy cannot run. (The runs
themselves: tests/test_workers.py, two workers under TF_CONFIG and under srun.)"""

import json
import os

from absl import flags
import pytest
import yaml

from commands import one_line_error
from t2t_lite.bin import t2t_trainer  # noqa: F401  (defines the trainer's flags)
from t2t_lite.distribute.cluster import find_cluster
from t2t_lite.distribute.cluster import is_chief_process

MANIFEST = os.path.join(os.path.dirname(__file__), "..", "docs", "tfjob.yaml")
TFJOB_PORT = 2222  # The operator's default, and the manifest's.
# The variables srun sets for task 2 of `srun -N 2 -n 4 --resv-ports=2` on node1 and node2.
SLURM_STEP = {"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "2",
              "SLURM_STEP_NODELIST": "node[1-2]", "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
              "SLURM_STEP_RESV_PORTS": "12000-12001"}


@pytest.fixture(autouse=True)
def no_cluster(monkeypatch):
  """The test's process outside of any cluster, whatever started it."""
  for name in list(os.environ):
    if name == "TF_CONFIG" or name.startswith("SLURM_"):
      monkeypatch.delenv(name)


def operator_tf_config(job, replica_type, index):
  """The TF_CONFIG Kubeflow's training operator sets in the pod of replica `index` of
  `replica_type` (its genTFConfigJSONStr): every replica type but the evaluator as a job of
  "<job>-<type>-<i>.<namespace>.svc:<port>" addresses, the task, and "environment"."""
  name, namespace = job["metadata"]["name"], job["metadata"].get("namespace", "default")
  cluster = {}
  for kind, spec in job["spec"]["tfReplicaSpecs"].items():
    if kind == "Evaluator":
      continue
    [container] = [c for c in spec["template"]["spec"]["containers"]
                   if c["name"] == "tensorflow"]
    port = next((p["containerPort"] for p in container.get("ports", ())
                 if p["name"] == "tfjob-port"), TFJOB_PORT)
    cluster[kind.lower()] = [f"{name}-{kind.lower()}-{i}.{namespace}.svc:{port}"
                             for i in range(spec["replicas"])]
  return json.dumps({"cluster": cluster, "task": {"type": replica_type.lower(),
                                                   "index": index}, "environment": "cloud"})


def manifest():
  with open(MANIFEST, encoding="utf-8") as f:
    return yaml.safe_load(f)


def test_each_pod_of_the_tfjob_manifest_is_its_worker_and_worker_0_the_chief(monkeypatch):
  job = manifest()
  [(kind, spec)] = job["spec"]["tfReplicaSpecs"].items()
  assert (kind, spec["replicas"]) == ("Worker", 2)
  roles = []
  for index in range(2):
    monkeypatch.setenv("TF_CONFIG", operator_tf_config(job, kind, index))
    cluster = find_cluster()
    roles.append((cluster.source, cluster.task_type, cluster.task_id, cluster.workers,
                  cluster.address, cluster.is_chief, is_chief_process()))
  assert roles == [
      ("TF_CONFIG", "worker", 0, 2, "t2t-ende-worker-0.default.svc:2222", True, True),
      ("TF_CONFIG", "worker", 1, 2, "t2t-ende-worker-1.default.svc:2222", False, False)]


def test_the_manifest_runs_the_trainer_with_its_own_flags():
  [container] = manifest()["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"][
      "containers"]
  assert container["command"] == ["t2t-trainer"]
  names = [arg[2:].split("=")[0] for arg in container["args"]]
  assert all(arg.startswith("--") for arg in container["args"])
  assert [name for name in names if name not in flags.FLAGS] == []


def test_a_tfjob_with_a_chief_makes_the_chief_write_and_not_worker_0(monkeypatch):
  job = manifest()
  worker = job["spec"]["tfReplicaSpecs"]["Worker"]
  job["spec"]["tfReplicaSpecs"] = {"Chief": dict(worker, replicas=1), "Worker": worker}
  chiefs = {}
  for kind, index in (("Chief", 0), ("Worker", 0), ("Worker", 1)):
    monkeypatch.setenv("TF_CONFIG", operator_tf_config(job, kind, index))
    cluster = find_cluster()
    assert cluster.workers == 3
    chiefs[(kind, index)] = (cluster.is_chief, is_chief_process())
  assert chiefs == {("Chief", 0): (True, True), ("Worker", 0): (False, False),
                    ("Worker", 1): (False, False)}


@pytest.mark.parametrize("kinds, task, refused", [
    (("PS", "Worker"), ("Worker", 0), "TF_CONFIG names ps tasks, but t2t-trainer trains "
     "with MultiWorkerMirroredStrategy, whose tasks are one chief and workers: drop the ps "
     "replicas; see docs/clusters.md"),
    (("Worker", "Evaluator"), ("Evaluator", 0), "TF_CONFIG makes this task an evaluator, "
     "which MultiWorkerMirroredStrategy does not have: the chief evaluates during training "
     "(--schedule=train_and_evaluate); see docs/clusters.md")])
def test_what_the_strategy_has_no_task_for_is_one_line(monkeypatch, kinds, task, refused):
  job = manifest()
  worker = job["spec"]["tfReplicaSpecs"]["Worker"]
  job["spec"]["tfReplicaSpecs"] = {kind: worker for kind in kinds}
  monkeypatch.setenv("TF_CONFIG", operator_tf_config(job, *task))
  assert one_line_error(find_cluster) == refused


def test_a_task_outside_of_its_cluster_is_one_line(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:1"]},
                                              "task": {"type": "worker", "index": 2}}))
  assert one_line_error(find_cluster) == (
      "TF_CONFIG's task {'type': 'worker', 'index': 2} is not one of its cluster's tasks "
      "(2 worker); see docs/clusters.md")


def test_an_srun_step_of_several_tasks_is_a_cluster_of_workers(monkeypatch):
  for name, value in SLURM_STEP.items():
    monkeypatch.setenv(name, value)
  cluster = find_cluster()
  assert (cluster.source, cluster.task_type, cluster.task_id) == ("Slurm", "worker", 2)
  # Tasks in rank order, node by node; the tasks of a node on the reserved ports in turn.
  assert cluster.jobs == {"worker": ["node1:12000", "node1:12001", "node2:12000",
                                     "node2:12001"]}
  assert not cluster.is_chief and not is_chief_process()
  assert cluster.describe() == "Slurm: worker 2 of 4 (node2:12000)"
  # MultiWorkerMirroredStrategy is told this task's own GPUs: none here.
  assert cluster.resolver.num_accelerators() == {"GPU": 0}
  assert (cluster.resolver.task_type, cluster.resolver.task_id) == ("worker", 2)
  assert "CUDA_VISIBLE_DEVICES" not in os.environ  # Slurm's choice of GPUs is kept.

  monkeypatch.setenv("SLURM_PROCID", "0")
  assert find_cluster().is_chief and is_chief_process()
  monkeypatch.delenv("SLURM_STEP_RESV_PORTS")
  assert find_cluster().address == "node1:8888"  # SlurmClusterResolver's first port.


def test_tf_config_comes_before_slurm_and_one_task_is_no_cluster(monkeypatch):
  for name, value in SLURM_STEP.items():
    monkeypatch.setenv(name, value)
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:1"]},
                                              "task": {"type": "worker", "index": 1}}))
  assert find_cluster().source == "TF_CONFIG"
  monkeypatch.delenv("TF_CONFIG")
  monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "1")  # srun -n 1, or a batch script.
  assert find_cluster() is None and is_chief_process()


def test_an_srun_step_that_does_not_describe_its_tasks_is_one_line(monkeypatch):
  monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "2")
  monkeypatch.setenv("SLURM_PROCID", "1")
  message = one_line_error(find_cluster)
  assert message.startswith("this process runs in a Slurm step of 2 tasks, but its SLURM_* "
                            "variables do not describe them ("), message
  assert message.endswith("start t2t-trainer with srun, or set TF_CONFIG; see "
                          "docs/clusters.md")


def tf_config(addresses, index=0, chiefs=()):
  return json.dumps({"cluster": {"worker": addresses, **({"chief": list(chiefs)} if chiefs
                                                          else {})},
                     "task": {"type": "worker", "index": index}})


@pytest.mark.parametrize("addresses, chiefs, refused", [
    (["a:2222", "b:http"], (), "TF_CONFIG's worker 1 address 'b:http': the port 'http' is not "
     "a number (host:port, the port 1-65535); see docs/clusters.md"),
    (["a:2222", "b:99999"], (), "TF_CONFIG's worker 1 address 'b:99999': the port 99999 is not "
     "in 1-65535; see docs/clusters.md"),
    (["a:0", "b:2222"], (), "TF_CONFIG's worker 0 address 'a:0': the port 0 is not in "
     "1-65535; see docs/clusters.md"),
    (["a:-1", "b:2222"], (), "TF_CONFIG's worker 0 address 'a:-1': the port '-1' is not a "
     "number (host:port, the port 1-65535); see docs/clusters.md"),
    (["a:2222", "b"], (), "TF_CONFIG's worker 1 address 'b' is not a host:port; see "
     "docs/clusters.md"),
    (["a:2222", ":2222"], (), "TF_CONFIG's worker 1 address ':2222' names no host "
     "(host:port); see docs/clusters.md"),
    (["a:2222", "A:02222"], (), "TF_CONFIG names A:02222 for both worker 0 and worker 1: each "
     "task needs an address of its own (another port, or another host); see docs/clusters.md"),
    (["a:2222", "b:2222"], ["b:2222"], "TF_CONFIG names b:2222 for both chief and worker 1: "
     "each task needs an address of its own (another port, or another host); see "
     "docs/clusters.md"),
    (["[::1]:2222", "[::1]:2222"], (), "TF_CONFIG names [::1]:2222 for both worker 0 and "
     "worker 1: each task needs an address of its own (another port, or another host); see "
     "docs/clusters.md"),
    (["a:2222", "b:2222"], ["c:2222", "d:2222"], "TF_CONFIG names 2 chief tasks; a cluster "
     "has at most one (make the others workers); see docs/clusters.md")])
def test_tf_config_addresses_are_checked_before_connecting(monkeypatch, addresses, chiefs,
                                                           refused):
  monkeypatch.setenv("TF_CONFIG", tf_config(addresses, chiefs=chiefs))
  assert one_line_error(find_cluster) == refused


@pytest.mark.parametrize("task", [{"type": "master", "index": 0}, {"type": "ps", "index": 0},
                                  {"type": "chief", "index": 0}, {"index": 0},
                                  {"type": "worker", "index": 2}, {"type": "worker", "index": -1}])
def test_a_task_of_no_known_type_or_past_the_count_is_one_line(monkeypatch, task):
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:1"]},
                                              "task": task}))
  assert one_line_error(find_cluster) == (
      f"TF_CONFIG's task {{'type': {task.get('type')!r}, 'index': {task['index']}}} is not one "
      f"of its cluster's tasks (2 worker); see docs/clusters.md")


def test_valid_addresses_pass(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", tf_config(["a:1", "a:65535", "[::1]:1"], chiefs=["A:2"]))
  assert find_cluster().workers == 4


SLURM_FIX = ("(the ports srun reserved for the step start at SLURM_STEP_RESV_PORTS={ports}, "
             "one a task of a node: reserve ports below 65536 with slurm.conf's "
             "MpiParams=ports=...)")


@pytest.mark.parametrize("changes, refused", [
    ({"SLURM_PROCID": "4"}, "SLURM_PROCID=4 is no rank of this Slurm step's 4 tasks (0 to 3, "
     "as SLURM_STEP_TASKS_PER_NODE lists them); start t2t-trainer with srun, or set TF_CONFIG; "
     "see docs/clusters.md"),
    ({"SLURM_PROCID": "-1"}, "SLURM_PROCID=-1 is no rank of this Slurm step's 4 tasks (0 to 3, "
     "as SLURM_STEP_TASKS_PER_NODE lists them); start t2t-trainer with srun, or set TF_CONFIG; "
     "see docs/clusters.md"),
    ({"SLURM_STEP_RESV_PORTS": "99999"}, "Slurm's worker 0 address 'node1:99999': the port "
     f"99999 is not in 1-65535 {SLURM_FIX.format(ports=99999)}; see docs/clusters.md"),
    ({"SLURM_STEP_RESV_PORTS": "65535-65536"}, "Slurm's worker 1 address 'node1:65536': the "
     f"port 65536 is not in 1-65535 {SLURM_FIX.format(ports='65535-65536')}; see "
     "docs/clusters.md")])
def test_slurm_ranks_and_ports_are_checked_before_connecting(monkeypatch, changes, refused):
  for name, value in dict(SLURM_STEP, **changes).items():
    monkeypatch.setenv(name, value)
  assert one_line_error(find_cluster) == refused
