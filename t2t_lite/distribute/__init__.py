"""The cluster a process trains in and the tf.distribute strategy it trains under, below
training and the commands that load a run.

  cluster.py             the cluster a process trains in: TF_CONFIG, or a Slurm step.
  cluster_addresses.py   a cluster's addresses checked before any worker connects.
  cluster_forming.py     waiting for the cluster's other tasks, before the strategy connects them.
  cluster_connecting.py  TensorFlow's own connection of the workers, bounded in time.
  host_lookups.py        host names looked up off the waiting thread: a hung resolver holds none.
  strategy.py            the tf.distribute strategy: one device, several, or several machines.
"""
