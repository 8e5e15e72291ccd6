"""Writes the SGLang crash dumps of the tests the way SGLang does
(TokenizerManager.dump_requests_before_crash, python/sglang/srt/managers/
tokenizer_manager.py): pickle.dump of

    {"server_args": ServerArgs, "requests": [(GenerateReqInput, out, created_time, finished_time), ...],
     "launch_command": " ".join(sys.argv)}

into <crash-dump-folder>/<hostname>/crash_dump_<%Y-%m-%d_%H-%M-%S>.pkl.

The classes are stand-ins defined in modules named like SGLang's
(sglang.srt.server_args, sglang.srt.managers.io_struct), so the pickle names
SGLang's class paths exactly as a real dump does. Every value is written out
below. Run from anywhere: python3 test/bundles/make_crash_dump.py

1. traces-wedge/d0/crash_dump_2026-11-20_04-20-00.pkl: the decode server d0
   dies at 2026-11-20T04:20:00Z. Its crash_dump_request_list still holds the
   two requests that finished at 03:38 (the list is pruned to 300 s only when
   a request finishes, and none did after the wedge); the three wedged
   requests are unfinished (their out is get_crash_dump_output(): {}).
2. ../ingest/fixtures/other-sglang/crash_dump_2026-11-20_04-20-00.pkl: the
   same crash as another SGLang version might dump it: ServerArgs fields
   renamed (model, disagg_mode), a request whose rid and bootstrap_room are
   named request_id and room, 3-tuples without the finish time, no
   launch_command, an enum and classes kvrewind knows nothing of.
"""
import dataclasses
import enum
import os
import pickle
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROTOCOL = 4  # pickle.DEFAULT_PROTOCOL of the Pythons SGLang runs on (3.10-3.13)


def module(name):
    """An importable stand-in module (and its parent packages), so pickle writes `name.Class` for classes in it."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    return sys.modules[name]


def defined_in(mod, cls):
    cls.__module__ = mod.__name__
    setattr(mod, cls.__name__, cls)
    return cls


server_args_mod = module("sglang.srt.server_args")
io_struct = module("sglang.srt.managers.io_struct")
router_mod = module("sglang.srt.router.hints")
version_mod = module("sglang.version_info")


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "deepseek-ai/DeepSeek-V3.2"
    served_model_name: str = "deepseek-ai/DeepSeek-V3.2"
    host: str = "10.0.0.12"
    port: int = 30000
    tp_size: int = 8
    dp_size: int = 1
    disaggregation_mode: str = "decode"
    disaggregation_transfer_backend: str = "nixl"
    disaggregation_bootstrap_port: int = 8998
    enable_trace: bool = True
    otlp_traces_endpoint: str = "10.0.0.5:4317"
    enable_metrics: bool = True
    crash_dump_folder: str = "crash_dumps"
    random_seed: int = 933244331


@dataclasses.dataclass
class GenerateReqInput:
    text: str = ""
    input_ids: list = None
    sampling_params: dict = None
    rid: str = None
    stream: bool = False
    return_logprob: bool = False
    bootstrap_host: str = None
    bootstrap_port: int = None
    bootstrap_room: int = None


defined_in(server_args_mod, ServerArgs)
defined_in(io_struct, GenerateReqInput)

LAUNCH = (
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --disaggregation-mode decode "
    "--disaggregation-transfer-backend nixl --tp-size 8 --host 10.0.0.12 --port 30000 --enable-trace "
    "--otlp-traces-endpoint 10.0.0.5:4317 --enable-metrics --crash-dump-folder crash_dumps"
)

T_0338 = 1795145880.0  # 2026-11-20T03:38:00Z
T_0340 = 1795146000.0  # 2026-11-20T03:40:00Z
T_CRASH = 1795148400.0  # 2026-11-20T04:20:00Z

# rid, room, created (s after T), prompt tokens
FINISHED = [
    ("a1f0c2d4e6b8091a2b3c4d5e6f708192", 1111111111111111111, T_0338 + 0.001, T_0338 + 1.530, 812),
    ("b2e1d3c5f7a9102b3c4d5e6f70819203", 2222222222222222222, T_0338 + 0.801, T_0338 + 2.000, 640),
]
WEDGED = [
    ("c3f2e4d6a8b0213c4d5e6f7081920314", 8972542885242963296, T_0340 + 0.001),
    ("d4a3f5e7b9c1324d5e6f708192031425", 5830149913321000001, T_0340 + 1.001),
    ("e5b4a6f8c0d2435e6f70819203142536", 7000000000000000007, T_0340 + 2.001),
]


def request(rid, room, prompt_tokens):
    return GenerateReqInput(
        text=f"prompt of {prompt_tokens} tokens",
        sampling_params={"max_new_tokens": 16, "temperature": 0.0},
        rid=rid,
        bootstrap_host="10.0.0.11",
        bootstrap_port=8998,
        bootstrap_room=room,
    )


def finished_out(rid, prompt_tokens, created, finished):
    return {
        "text": "sixteen tokens of output",
        "output_ids": list(range(1000, 1016)),
        "meta_info": {
            "id": rid,
            "finish_reason": {"type": "length", "length": 16},
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 16,
            "cached_tokens": 0,
            "e2e_latency": round(finished - created, 3),
        },
    }


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump(data, f, protocol=PROTOCOL)


requests = [(request(rid, room, n), finished_out(rid, n, c, f), c, f) for rid, room, c, f, n in FINISHED]
requests += [(request(rid, room, 900), {}, c, T_CRASH) for rid, room, c in WEDGED]
write(
    os.path.join(HERE, "traces-wedge", "d0", "crash_dump_2026-11-20_04-20-00.pkl"),
    {"server_args": ServerArgs(), "requests": requests, "launch_command": LAUNCH},
)


# Another SGLang version: renamed and missing fields, classes kvrewind does not know.
class LoadBalanceMethod(enum.Enum):
    ROUND_ROBIN = "round_robin"


@dataclasses.dataclass
class OtherServerArgs:
    model: str = "deepseek-ai/DeepSeek-V3.2"
    disagg_mode: str = "decode"
    load_balance_method: LoadBalanceMethod = LoadBalanceMethod.ROUND_ROBIN


@dataclasses.dataclass
class OtherGenerateReqInput:
    text: str = ""
    request_id: str = None
    room: int = None
    routing: object = None


@dataclasses.dataclass
class RouterHint:
    prefill_url: str = "http://10.0.0.11:30000"
    attempt: int = 2


@dataclasses.dataclass
class VersionInfo:
    version: str = "0.4.9.post3"


OtherServerArgs.__name__ = OtherServerArgs.__qualname__ = "ServerArgs"
OtherGenerateReqInput.__name__ = OtherGenerateReqInput.__qualname__ = "GenerateReqInput"
del server_args_mod.ServerArgs, io_struct.GenerateReqInput
defined_in(server_args_mod, OtherServerArgs)
defined_in(io_struct, OtherGenerateReqInput)
defined_in(server_args_mod, LoadBalanceMethod)
defined_in(router_mod, RouterHint)
defined_in(version_mod, VersionInfo)

rid, room, created = WEDGED[0]
write(
    os.path.join(HERE, "..", "ingest", "fixtures", "other-sglang", "crash_dump_2026-11-20_04-20-00.pkl"),
    {
        "server_args": OtherServerArgs(),
        "requests": [
            (OtherGenerateReqInput(text="prompt", request_id=rid, room=room, routing=RouterHint()), {"meta_info": {"finish_reason": None}}, created),
            (OtherGenerateReqInput(text="prompt", request_id="f6c5b7a9d1e3546f708192031425364a", room=None), {}),
        ],
        "version": VersionInfo(),
    },
)
