"""Installs t2t_lite; the top-level problems/, hparams/ and bin/ folders install under it."""

import re

from setuptools import find_packages, setup

# The version is declared once, in t2t_lite/__init__.py (read here without importing it).
with open("t2t_lite/__init__.py", encoding="utf-8") as init_file:
  VERSION = re.search(r'^__version__ = "([^"]+)"$', init_file.read(), re.M).group(1)

setup(
    name="t2t_lite",
    version=VERSION,
    description="tensor2tensor's Transformer on TensorFlow 2 and Keras 3",
    license="Apache-2.0",
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11,<3.14",  # Keras 3.15 needs 3.11.
    packages=find_packages(include=["t2t_lite", "t2t_lite.*"]) + [
        "t2t_lite.problems", "t2t_lite.hparams_sets", "t2t_lite.bin"],
    package_data={"t2t_lite.serving": ["page.html"]},  # t2t-serve's page at /.
    # Never top-level `problems` or `hparams` modules in site-packages.
    package_dir={
        "t2t_lite.problems": "problems",
        "t2t_lite.hparams_sets": "hparams",
        "t2t_lite.bin": "bin",
    },
    install_requires=[
        "tensorflow>=2.21,<2.22",
        "keras>=3.15,<3.16",  # Internals some modules rely on: tests/test_keras_internals.py.
        "tensorflow-text>=2.21,<2.22",
        "tensorflow-datasets>=4.9,<5",
        "sacrebleu>=2.4,<3",
        "sacremoses>=0.1,<0.3",  # Moses' tokenizer.perl, for the paper-comparable BLEU.
        "absl-py>=2.1,<3",
        "sentencepiece>=0.2,<0.3",
        "tensorboard>=2.20,<3",  # tf.summary; TensorFlow no longer brings it.
        "matplotlib>=3.8,<4",    # curves.png of a run, t2t-visualize's labelled heat maps.
        "importlib_resources",   # tensorflow-datasets downloads need it but do not declare it.
    ],
    extras_require={"test": ["pytest>=8,<10", "pytest-xdist>=3.8,<4", "jax[cpu]>=0.4.34",
                             "hypothesis>=6.100,<7",  # tests/test_fuzz_inputs.py.
                             "build>=1.2,<2",  # make dist; tests/test_wheel.py.
                             "ctranslate2>=4,<5",
                             "aiohttp>=3.9,<4",  # t2t-serve, and its tests' client.
                             # make docs; its strict build is a test.
                             "mkdocs>=1.6,<2", "mkdocs-material>=9.5,<10"],
                    # GPUs: TensorFlow's own extra, which brings the CUDA libraries it opens.
                    "gpu": ["tensorflow[and-cuda]>=2.21,<2.22"],
                    # t2t-exporter --export_format=ctranslate2.
                    "ctranslate2": ["ctranslate2>=4,<5"],
                    # t2t-serve: TensorFlow Serving's REST API (server and client in one).
                    "serve": ["aiohttp>=3.9,<4"],
                    # Peers of the benchmarks in bench/ (make bench); never needed otherwise.
                    "bench": ["torch==2.13.0", "keras-hub>=0.20,<1"]},
    # Built-in problems, hparams sets and models register by decorator (t2t_lite.registry);
    # another package adds its own as entry points of those groups.
    entry_points={
        "console_scripts": [
            "t2t-trainer=t2t_lite.bin.t2t_trainer:run",
            "t2t-decoder=t2t_lite.bin.t2t_decoder:run",
            "t2t-datagen=t2t_lite.bin.t2t_datagen:run",
            "t2t-exporter=t2t_lite.bin.t2t_exporter:run",
            "t2t-avg-all=t2t_lite.bin.t2t_avg_all:run",
            "t2t-bleu=t2t_lite.bin.t2t_bleu:run",
            "t2t-visualize=t2t_lite.bin.t2t_visualize:run",
            "t2t-serve=t2t_lite.bin.t2t_serve:run",
        ],
    },
)
