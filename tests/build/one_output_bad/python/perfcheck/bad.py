"""What build.one_output must find in Python (build.one_output_found)."""
import os


def bad(path, text):
    with open(path, "w") as f:  # 5
        f.write(text)
    with open(path, "rb") as f:  # fine: reading
        f.read()
    os.replace(path, path + ".old")  # 6
