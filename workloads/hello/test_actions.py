"""The OpenWhisk actions and the Kubeless function of hello (settings.code_file): each answers a raw-HTTP web action's
result with the function contract's headers, cold only on its first activation, and the broken one fails at load."""
import importlib.util
import json
import pathlib
import subprocess

HERE = pathlib.Path(__file__).parent


def test_python_action_is_cold_once_and_names_its_instance():
    spec = importlib.util.spec_from_file_location("action", HERE / "python" / "actions" / "openwhisk.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    first, second = mod.main({}), mod.main({})
    assert first["statusCode"] == 200 and first["body"] == "pong"
    assert first["headers"]["X-Fb-Cold"] == "1" and first["headers"]["X-Fb-Cold-Kind"] == "process"
    assert second["headers"]["X-Fb-Cold"] == "0" and "X-Fb-Cold-Kind" not in second["headers"]
    assert first["headers"]["X-Fb-Instance"] == second["headers"]["X-Fb-Instance"] != ""
    assert int(first["headers"]["X-Fb-Handler-End-Ns"]) >= int(first["headers"]["X-Fb-Handler-Begin-Ns"])


def test_node_actions():
    script = ("const a = require(process.argv[1]); console.log(JSON.stringify([a.main(), a.main()]));"
              "try { require(process.argv[2]); console.log('loaded'); } catch (e) { console.log(e.message); }")
    out = subprocess.run(["node", "-e", script, str(HERE / "node" / "actions" / "openwhisk.js"), str(HERE / "node" / "actions" / "openwhisk-broken.js")],
                         capture_output=True, text=True, check=True, timeout=60).stdout.splitlines()
    first, second = json.loads(out[0])
    assert first["body"] == "pong" and first["headers"]["X-Fb-Cold"] == "1" and second["headers"]["X-Fb-Cold"] == "0"
    assert first["headers"]["X-Fb-Instance"] == second["headers"]["X-Fb-Instance"]
    assert out[1] == "faasbench: this action fails at init on purpose"


def test_kubeless_function_is_cold_once_per_container(tmp_path, monkeypatch):
    class HTTPResponse:  # bottle's, as far as the function uses it
        def __init__(self, body, status, headers):
            self.body, self.status, self.headers = body, status, headers

    monkeypatch.setitem(__import__("sys").modules, "bottle", type("bottle", (), {"HTTPResponse": HTTPResponse}))
    spec = importlib.util.spec_from_file_location("function", HERE / "python" / "actions" / "kubeless.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "MARKER", str(tmp_path / "served"))
    first, second = mod.main({"data": b""}, {}), mod.main({"data": b"x"}, {})
    assert first.body == "pong" and first.status == 200
    assert first.headers["X-Fb-Cold"] == "1" and first.headers["X-Fb-Cold-Kind"] == "container"
    assert second.headers["X-Fb-Cold"] == "0" and "X-Fb-Cold-Kind" not in second.headers
    assert first.headers["X-Fb-Instance"] == second.headers["X-Fb-Instance"] != ""
