"""The photo reader: a phone photo of a finished garden -> the garden it shows (``babylon-garden/1``).

Each stage is a function of its own module that takes data and returns data, and can draw a debug
picture of what it found:

- :mod:`vision.read.load`: the file -> an upright image (EXIF orientation, format, size limits)
- :mod:`vision.read.board`: the image -> the board's plane homography and its orientation
- :mod:`vision.read.pose`: the homography -> the camera (focal length, pose, lens distortion)
- :mod:`vision.read.tiles`: the camera -> every visible terrace tile, its level (a plane sweep solved
  jointly) and its flower
- :mod:`vision.read.reading`: the pipeline, and the :class:`Reading` it returns

Library use::

    from vision.read import read_photo
    reading = read_photo("garden.jpg")
    reading.garden          # a scoring.Garden
    reading.confidence      # 0..1
"""

from vision.read.load import ImageTooLargeError, PhotoError, UnreadableImageError, load_photo
from vision.read.reading import NoBoardError, Reading, ReadWarning, TileReading, read_photo

__all__ = [
    "ImageTooLargeError",
    "NoBoardError",
    "PhotoError",
    "ReadWarning",
    "Reading",
    "TileReading",
    "UnreadableImageError",
    "load_photo",
    "read_photo",
]
