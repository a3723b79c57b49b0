"""Draft model cards from what the user already has, never written silently.

- :mod:`.code` -- inference and training scripts read with :mod:`ast` (never run): literal
  constants in ``cv2.dnn.blobFromImage``, ``cv2.cvtColor(…, COLOR_BGR2RGB)``, ``img[..., ::-1]``,
  ``transforms.Normalize(mean, std)``, ``/ 255``, ``- 127.5``, ``* 0.0078125``, mmcv's
  ``img_norm_cfg``; each value with the file and line it came from, "unknown" where the code
  computes it;
- :mod:`.dumps` -- the user's own Caffe dumps: the case-1 fit between the image and the Caffe data
  blob gives the order, the scale and the mean;
- :mod:`.render` -- the text of an entry and the edits that add it.

:class:`Draft` is what both readers give: per card key a :class:`DraftValue` (the value, or None
for unknown, with where it came from).

May import: core, readers, project, triage.
"""

from __future__ import annotations

from nnie_lsp.core.records import FrozenRecord


class DraftValue(FrozenRecord):
    key: str
    value: object | None            # None: unknown (the code computes it, or nothing says)
    source: str                     # "detect.py:42: cv2.dnn.blobFromImage(…)" or why it is unknown
    certain: bool = True            # False: read from a pattern that usually means it (a hint)


class Draft(FrozenRecord):
    values: tuple[DraftValue, ...]
    files: tuple[str, ...] = ()     # what was read
    notes: tuple[str, ...] = ()

    def get(self, key: str) -> DraftValue | None:
        return next((v for v in self.values if v.key == key), None)

    def known(self) -> dict:
        """key -> value of the values that are known."""
        return {v.key: v.value for v in self.values if v.value is not None}

    def comments(self) -> dict:
        return {v.key: v.source for v in self.values}

    @property
    def empty(self) -> bool:
        return not self.known()
