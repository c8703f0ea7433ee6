"""A private Kafka cluster of KRaft nodes (each broker and controller) under one directory, on 127.0.0.1.

Each node is a ``KafkaServer`` (fleet/services/kafka.py) in ``<dir>/node-<id>``, formatted with one shared
cluster id (kept in ``<dir>/cluster.id``, so a restart finds its data) and voting in one controller quorum.
The nodes serve only once a majority of controllers is up, so ``start`` launches them all before waiting.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fleet.kafka_admin import wait_for_brokers
from fleet.services.kafka import KafkaServer, new_cluster_id

log = logging.getLogger(__name__)


class KafkaCluster:
    """Nodes ``(id, broker port, controller port)``; `replication_factor` and `min_insync_replicas` are the
    brokers' defaults for auto-created and internal topics (consumer offsets included)."""

    def __init__(self, data_dir: Path | str, nodes: list[tuple[int, int, int]], *, replication_factor: int = 3,
                 min_insync_replicas: int = 2, heap: str = "384m", jvm_extra: tuple[str, ...] = ()) -> None:
        self.data_dir = Path(data_dir).resolve()
        if len(nodes) < replication_factor:
            raise ValueError(f"{len(nodes)} Kafka nodes cannot hold {replication_factor} replicas")
        voters = ",".join(f"{node}@127.0.0.1:{controller}" for node, _, controller in nodes)
        cluster_id = self._cluster_id()
        self.nodes = [
            KafkaServer(self.data_dir / f"node-{node}", port, controller, heap=heap, node_id=node,
                        quorum_voters=voters, cluster_id=cluster_id, replication_factor=replication_factor,
                        min_insync_replicas=min_insync_replicas, jvm_extra=jvm_extra)
            for node, port, controller in nodes]

    @property
    def bootstrap(self) -> str:
        return ",".join(node.bootstrap for node in self.nodes)

    def _cluster_id(self) -> str:
        path = self.data_dir / "cluster.id"
        if not path.is_file():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(new_cluster_id() + "\n")
        return path.read_text().strip()

    def is_running(self) -> bool:
        return any(node.is_running() for node in self.nodes)

    def start(self, timeout_s: float = 180) -> None:
        """Launch every node, wait for each to serve metadata, then for the cluster to list them all as
        registered brokers; on failure stop them all (ServiceError or PortInUseError as KafkaServer raises
        them, TimeoutError)."""
        try:
            for node in self.nodes:
                node.launch()
            for node in self.nodes:
                node.wait_ready(timeout_s)
            wait_for_brokers(self.bootstrap, [node.node_id for node in self.nodes], timeout_s)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout_s: float = 30) -> None:
        """A controlled shutdown of every node at once: one after the other, the last node would wait out
        `timeout_s` for a controller quorum the others took away, then be killed."""
        with ThreadPoolExecutor(max_workers=len(self.nodes)) as pool:
            list(pool.map(lambda node: node.stop(timeout_s), self.nodes))
