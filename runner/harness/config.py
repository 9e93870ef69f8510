"""What one cell run needs to know, passed from the supervisor to its pytest worker as JSON."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import List, Optional

ENV_CONFIG = "RUNNER_HARNESS_CONFIG"
ENV_EVENTS_FD = "RUNNER_EVENTS_FD"
DEFAULT_TIMEOUT_S = 900.0  # the study's per-test limit: 15 minutes


@dataclass
class Config:
    framework: str
    device: str
    out: str
    curated_root: str  # case ids are relative to this folder
    cases: List[str] = field(default_factory=list)  # folders or modules to collect; default <root>/<framework>
    mode: str = "steady"  # or "paper"
    quick: bool = False  # few warm samples: for CI, not for results
    functions: List[str] = field(default_factory=list)  # fnmatch patterns over sampled names
    timeout_s: float = DEFAULT_TIMEOUT_S
    resume: bool = False
    run_id: str = ""
    profile: str = ""
    image: str = ""
    annotations: Optional[str] = None
    repeat: int = 1
    environment: str = ""  # a Docker image id or a venv name: what exactly ran

    def case_paths(self) -> List[str]:
        return self.cases or [os.path.join(self.curated_root, self.framework)]

    def annotations_path(self) -> str:
        return self.annotations or os.path.join(self.curated_root, "annotations.json")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> Optional["Config"]:
        raw = os.environ.get(ENV_CONFIG)
        return cls(**json.loads(raw)) if raw else None
