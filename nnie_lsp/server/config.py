"""Editor settings (section ``nnie``): parsing, validation, language choice.

Shape (VS Code nests dotted keys; flat dotted keys are accepted too)::

    {"lint": {"run": "onType" | "onSave", "select": [...], "ignore": [...],
              "severity": {"NN301": "error"}, "debounce": 300,
              "workspace": false},      # lint every cfg/prototxt of the workspace (server/workspace_lint.py)
     "sourceFramework": "auto" | "caffe" | "darknet" | ...,
     "language": "auto" | "en" | "zh-cn"}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from nnie_lsp.core import i18n
from nnie_lsp.project.settings import LintSettings, SettingsError, settings_from_mapping

KNOWN_TOP = {"lint", "sourceFramework", "language", "trace"}
# settings of the `nnie` section that only the editor client uses (how to start the server,
# which files to claim, the triage pickers' default folders); VS Code sends the whole section,
# so they are accepted and ignored here
CLIENT_ONLY_TOP = {"server", "interpreter", "cfgFilePatterns", "locale", "triage"}
KNOWN_LINT = {"run", "select", "ignore", "severity", "debounce", "extendSelect", "perFileIgnores", "enable",
              "workspace"}


@dataclass(frozen=True)
class ServerSettings:
    run: str = "onType"
    debounce_ms: int = 300
    language: str = "auto"
    workspace: bool = False          # lint.workspace: the Problems list covers every file of the workspace
    lint: Mapping[str, Any] = field(default_factory=dict)  # a [tool.nnie-lint]-shaped mapping

    def lint_settings(self, base: LintSettings | None = None) -> LintSettings:
        return settings_from_mapping(self.lint, origin="editor settings (nnie.*)", base=base) \
            if self.lint else (base or LintSettings())


def _nest(raw: Mapping) -> dict:
    """Turn flat dotted keys ("lint.run") into nested dicts."""
    out: dict = {}
    for k, v in raw.items():
        parts = str(k).split(".")
        cur = out
        for p in parts[:-1]:
            nxt = cur.get(p)
            if not isinstance(nxt, dict):
                nxt = {}
                cur[p] = nxt
            cur = nxt
        if isinstance(v, Mapping) and isinstance(cur.get(parts[-1]), dict):
            cur[parts[-1]].update(_nest(v))
        else:
            cur[parts[-1]] = _nest(v) if isinstance(v, Mapping) and parts[-1] != "severity" else v
    return out


def unwrap(raw: Any) -> Mapping | None:
    """initializationOptions / configuration value -> the ``nnie`` settings mapping."""
    if raw is None:
        return None
    if isinstance(raw, (list, tuple)):
        raw = raw[0] if raw else None
        if raw is None:
            return None
    if not isinstance(raw, Mapping):
        return raw  # validated (and rejected) by parse_settings
    if "nnie" in raw and isinstance(raw["nnie"], Mapping):
        return raw["nnie"]
    if "settings" in raw:
        return unwrap(raw["settings"])
    if "globalSettings" in raw:
        return unwrap(raw["globalSettings"])
    return raw


def parse_settings(raw: Any, lang: str = "en") -> ServerSettings:
    """Validate; raises SettingsError with a readable message."""
    if raw is None:
        return ServerSettings()
    if not isinstance(raw, Mapping):
        raise SettingsError(i18n.t("settings.bad_type", lang, key="nnie", what="an object"))
    data = _nest(raw)
    unknown = sorted(set(data) - KNOWN_TOP - CLIENT_ONLY_TOP)
    if unknown:
        raise SettingsError(i18n.t("settings.unknown", lang, keys=", ".join(unknown)))
    lint = data.get("lint") or {}
    if not isinstance(lint, Mapping):
        raise SettingsError(i18n.t("settings.bad_type", lang, key="nnie.lint", what="an object"))
    unknown = sorted(set(lint) - KNOWN_LINT)
    if unknown:
        raise SettingsError(i18n.t("settings.unknown", lang, keys=", ".join(f"lint.{k}" for k in unknown)))
    run = lint.get("run", "onType")
    if run not in ("onType", "onSave"):
        raise SettingsError(i18n.t("settings.bad_run", lang, value=run))
    debounce = lint.get("debounce", 300)
    if isinstance(debounce, bool) or not isinstance(debounce, (int, float)) or not 0 <= debounce <= 10000:
        raise SettingsError(i18n.t("settings.bad_debounce", lang, value=debounce))
    workspace = lint.get("workspace", False)
    if not isinstance(workspace, bool):
        raise SettingsError(i18n.t("settings.bad_type", lang, key="nnie.lint.workspace", what="true or false"))
    language = str(data.get("language", "auto") or "auto")
    if language.lower() not in ("auto", "en", "zh-cn", "zh", "zh-hans"):
        raise SettingsError(i18n.t("settings.bad_language", lang, value=language))
    mapping: dict[str, Any] = {}
    for src, dst in (("select", "select"), ("ignore", "ignore"), ("severity", "severity"),
                     ("extendSelect", "extend-select"), ("perFileIgnores", "per-file-ignores")):
        if lint.get(src) is not None:
            mapping[dst] = lint[src]
    if data.get("sourceFramework") is not None:
        mapping["source-framework"] = data["sourceFramework"]
    settings = ServerSettings(run=run, debounce_ms=int(debounce), language=language.lower(), lint=mapping,
                              workspace=workspace)
    settings.lint_settings()  # validate now: raises SettingsError
    return settings


def choose_language(setting: str, locale: str | None, cli: str | None = None) -> str:
    """"en" or "zh": an explicit setting wins, then the command line, then the client locale."""
    s = (setting or "auto").lower()
    if s != "auto":
        return i18n.language(s)
    if cli:
        return i18n.language(cli)
    return i18n.language(locale)
