"""Batch scoring of photo sets (``babylon batch``): parallel, resumable, locally or on Dask.

- :mod:`service.batch.record`: one photo -> its result record (:func:`score_photo_record`)
- :mod:`service.batch.inputs`: the photos under the paths given
- :mod:`service.batch.results`: the results file (JSONL or CSV), appended and synced per photo,
  repaired and resumed by content hash
- :mod:`service.batch.execute`: local worker processes, or a Dask cluster
- :mod:`service.batch.runner`: a batch from start to end (:func:`run_batch`)
- :mod:`service.batch.games`: one game per folder, ranked with the tie-break
- :mod:`service.batch.report`: the summary printed at the end
"""

from service.batch.record import PHOTO_FAULTS, RETRY_KINDS, PhotoRecord, score_photo, score_photo_record
from service.batch.runner import Outcome, Plan, run_batch

__all__ = [
    "PHOTO_FAULTS", "RETRY_KINDS", "Outcome", "PhotoRecord", "Plan", "run_batch", "score_photo",
    "score_photo_record",
]
