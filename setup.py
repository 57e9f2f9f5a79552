"""Build step: the wheel carries the notebook suite and the bundled data as package data.

The repository keeps ``notebooks/`` and ``data/`` at its root; building a
wheel copies both into ``relmodel/_suite/`` inside the build, where
``relmodel.resources`` finds them through ``importlib.resources``.  An
editable install copies nothing: the package then finds them at the root of
the checkout.  Everything else about the build is in ``pyproject.toml``.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PARTS = {"notebooks": "*.ipynb", "data": "**/*"}


class BuildWithSuite(build_py):
    """``build_py`` that also copies the notebook suite and bundled data into the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for part, pattern in PARTS.items():
            for source in sorted((ROOT / part).glob(pattern)):
                if source.is_file():
                    target = Path(self.build_lib, "relmodel", "_suite", part, source.relative_to(ROOT / part))
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, target)


setup(cmdclass={"build_py": BuildWithSuite})
