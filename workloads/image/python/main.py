"""image: seed 000's ImageMagick transformations on a PNG body, through Wand (which binds Debian's
libMagickWand, the library the C++ version uses through Magick++). ?variant=np: decode, sleep 1 s,
encode. ?version=1: the ImageMagick version string."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402
from wand.image import Image  # noqa: E402
from wand.version import MAGICK_VERSION  # noqa: E402


def transform(img: Image) -> None:
    """The same steps, with the same parameters, as the C++ version."""
    img.blur(radius=0, sigma=1.5)
    img.noise("gaussian")
    img.noise("impulse")
    img.enhance()
    img.negate()
    img.normalize()
    img.statistic("nonpeak", width=3, height=3)  # Magick++'s reduceNoise(3)
    img.swirl(degree=90)
    img.wave(amplitude=10, wave_length=100)


def handle(req: fbrt.Request) -> fbrt.Response:
    if req.query.get("version") == "1":
        return fbrt.Response(MAGICK_VERSION.encode())
    if not req.body:
        raise fbrt.FunctionError("empty body, want a PNG")
    with Image(blob=req.body) as img:
        if req.query.get("variant") == "np":
            time.sleep(1)
        else:
            transform(img)
        out = img.make_blob("png")
    return fbrt.Response(out, headers={"Content-Type": "image/png"})


if __name__ == "__main__":
    fbrt.serve(handle)
