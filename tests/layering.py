#!/ usr / bin / env python3
"""The layers are something the build checks (src/README.md).

For every layer folder of src/ and for the program (src/cli/), takes the
compiler command the build itself uses for one of its files (from
compile_commands.json) and compiles, with it, a file that includes one
header of each layer: every public header, and one private header a layer.
A header of the layer itself or of a layer it may use must compile; any
other must fail (the header is not on the include path). The program may
include every public header and no private one.

    layering.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

#Who may use whom : the layers each layer links(and through them theirs),
#as src / CMakeLists.txt declares them.
LINKS = {
    "base": [],
    "input": ["base"],
    "stats": ["input"],
    "analysis": ["stats"],
    "history": ["analysis"],
    "views": ["history"],
    "site": ["views"],
    "run": ["analysis"],
    "bisect": ["run", "views"],
    "calibrate": ["run", "views"],
}
#One private header of each layer that has one.
PRIVATE = {
    "base": "buf.h",
    "input": "log_int.h",
    "stats": "pairs.h",
    "history": "archive_int.h",
    "views": "present.h",
    "site": "site_int.h",
    "run": "run_int.h",
    "bisect": "bisect_int.h",
}


def below(layer):
    out = {layer}
    for d in LINKS[layer]:
        out |= below(d)
    return out


def main():
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(build, "compile_commands.json")) as f:
        db = json.load(f)
    layers = sorted(LINKS)
#Every layer folder is declared here : a new one must say whom it uses.
    on_disk = sorted(d for d in os.listdir(os.path.join(src, "src"))
                     if os.path.isdir(os.path.join(src, "src", d))
                     and d != "cli")
    if on_disk != layers:
        print(f"layering: src/ has {on_disk}, this test knows {layers}")
        return 1
#No source file left at the top of src /.
    top = [f for f in os.listdir(os.path.join(src, "src"))
           if f.endswith((".c", ".h"))]
    if top:
        print(f"layering: files at the top of src/: {top}")
        return 1

    public = {}
    for layer in layers:
        d = os.path.join(src, "src", layer, "include", "benchsite")
        public[layer] = sorted(os.listdir(d)) if os.path.isdir(d) else []
        for h in public[layer]:
            assert h.endswith(".h"), h

    def command_for(folder):
        prefix = os.path.join(src, "src", folder) + os.sep
        for e in db:
            if e["file"].startswith(prefix) and e["file"].endswith(".c"):
                return e
        raise SystemExit(f"layering: no compile command for src/{folder}")

    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.c")

        def compiles(entry, header):
            with open(probe, "w") as f:
                f.write(f'#include "{header}"\nint bs_layering_probe;\n')
            argv = shlex.split(entry["command"])
#Drop the object output and the source, compile the probe.
            out = []
            skip = False
            for a in argv:
                if skip:
                    skip = False
                    continue
                if a in ("-o", "-c", "-MF", "-MT", "-MQ"):
                    skip = True
                    continue
                if a in ("-MD", "-MMD"):
                    continue
                out.append(a)
            out += ["-fsyntax-only", probe]
            r = subprocess.run(out, cwd=entry["directory"],
                               capture_output=True, text=True)
            return r.returncode == 0, r.stderr

        for user in layers + ["cli"]:
            entry = command_for(user)
            allowed = below(user) if user != "cli" else set(layers)
            for layer in layers:
                cases = [("benchsite/" + h, True) for h in public[layer]]
                if layer in PRIVATE:
                    cases.append((PRIVATE[layer], False))
                for header, is_public in cases:
                    want = layer in allowed and (user != "cli" or is_public)
                    ok, err = compiles(entry, header)
                    checked += 1
                    if ok != want:
                        failures += 1
                        verb = "compiled" if ok else "failed"
                        print(f"layering: src/{user} including {header} "
                              f"(src/{layer}) {verb}; expected the "
                              f"opposite")
                        if not ok:
                            print(err.strip()[:600])
    print(f"layering: {checked} includes checked, {failures} wrong")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
