"""Instructions the engine executes on a fixed sample of the corpora, counted by valgrind.

    python bench/instructions.py                        # every 6th file of tf_keras, keras, tfp
    python bench/instructions.py --every 3 --server /path/to/other/server

Wall time on a shared 2-core machine moves by a third from one minute to the next, so two versions
of the engine are compared here by the instructions valgrind's callgrind counts while one process
runs `check_source` over the same files (every `--every`-th `.py` file of each corpus, in sorted
order), the texts read before, Python's cyclic collector off. Module imports and bytecode
compilation are kept out of the count by warming the engine on a small text first, and the
tapelsp under test is compiled to bytecode beforehand. Prints the files, the lines, the findings
(the same for two versions that find the same) and the count in millions. About two minutes for
the default sample. A script, not a test; it needs `valgrind` on the PATH.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

WARM = "import tensorflow as tf\nv = tf.Variable(1.0)\n"


def sample(every: int, names: list[str]) -> list[Path]:
    env = corpus.ensure(quiet=True)
    chosen: list[Path] = []
    for name in names:
        files = sorted(corpus.python_files(env.corpus(name)))
        chosen.extend(files[::every])
    return chosen


def child(server: str, listing: str) -> None:
    """Run in the process valgrind counts: check every listed file."""
    import gc

    sys.path.insert(0, server)
    from tapelsp import engine

    paths = [line for line in Path(listing).read_text().splitlines() if line]
    texts = [(path, Path(path).read_text(encoding="utf-8", errors="replace")) for path in paths]
    engine.check_source(WARM, "warm.py")
    gc.disable()
    findings = sum(len(engine.check_source(text, path)) for path, text in texts)
    print(f"findings {findings}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=6, help="take every N-th file of each corpus (default 6)")
    ap.add_argument("--corpus", nargs="+", default=list(corpus.CORPORA), choices=list(corpus.CORPORA))
    ap.add_argument("--server", default=str(corpus.REPO / "server"), help="the server/ directory to count")
    ap.add_argument("--child", nargs=2, metavar=("SERVER", "LISTING"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    server = str(Path(args.server).resolve())
    compileall.compile_dir(os.path.join(server, "tapelsp"), quiet=1)
    files = sample(args.every, args.corpus)
    lines = corpus.count_lines(files)
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(map(str, files)) + "\n")
        out = Path(tmp) / "callgrind.out"
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                               __file__, "--child", server, str(listing)], capture_output=True, text=True)
    counted = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    findings = re.search(r"findings (\d+)", proc.stdout)
    if proc.returncode != 0 or counted is None:
        sys.exit(f"valgrind run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    print(f"tapelsp {server}: {len(files)} files, {lines:,} lines ({', '.join(args.corpus)}; one file "
          f"in {args.every}), {findings.group(1) if findings else '?'} findings, "
          f"{int(counted.group(1)) / 1e6:,.0f} M instructions")


if __name__ == "__main__":
    main()
