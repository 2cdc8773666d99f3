"""A small git repository for the mutation drivers' tests (make mutate's and make mutate-py's): files committed
once, as the drivers read HEAD."""
import subprocess


def git_repo(path, files):
    """Makes path a repository holding files (name -> text), committed; returns path."""
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    for c in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(path), *c], check=True)
    return path
