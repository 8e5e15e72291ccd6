// detect(head): SGLang server logs by content, not by name.

import { test } from "node:test";
import assert from "node:assert/strict";
import { sglangLog } from "../../ingest/formats/sglangLog.js";

test("SGLang server log heads are detected", () => {
  const heads = [
    // scheduler lines
    "[2026-08-20 10:00:01 DP0 TP0] Init torch distributed begin.\n[2026-08-20 10:00:02 DP0 TP0] Load weight begin. avail mem=139.21 GB\n",
    // with milliseconds and CRLF endings
    "[2026-08-20 10:00:01.017 TP3] Init torch distributed begin.\r\n[2026-08-20 10:00:02.120 TP3] Load weight end.\r\n",
    // tokenizer / uvicorn process
    '[2026-08-20 10:00:10] INFO:     Started server process [48211]\n[2026-08-20 10:00:11] INFO:     127.0.0.1:52344 - "GET /health HTTP/1.1" 200 OK\n',
    // warnings before the first log line, and a head cut mid-line
    "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.\n  import pynvml\n[2026-08-20 10:00:01 TP0] Init torch distributed beg",
    // a stderr capture holding only NCCL watchdog lines
    "[rank3]:[E820 10:30:02.408271257 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n",
  ];
  for (const head of heads) assert.equal(sglangLog.detect(head), true, head.slice(0, 60));
});

test("probe JSONL, checksum JSONL/CSV, flight-recorder JSON, binary and plain text are not", () => {
  const heads = [
    '{"ts": 1764421512.123456, "host": "p0", "role": "prefill", "dp": 0, "pp": 0, "tp": 3, "ev": "kv.post", "room": 8972542885242963296, "chunk": 2}\n',
    '{"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 3, "side": "decode_recv", "room": 8972542885242963296, "buffer": "index_k", "layer": 0, "page": 1024, "pos": 0, "algo": "crc32", "hash": "9ae0daaf"}\n',
    "ts,host,role,tp,side,room,buffer,layer,page,pos,algo,hash\n1764421512.5,d0,decode,3,decode_recv,8972542885242963296,index_k,0,1024,0,crc32,9ae0daaf\n",
    '{"version": "2.4", "pg_config": {"0": {"desc": "default_pg", "ranks": "[0, 1]"}}, "entries": []}',
    "\u001f\u008b\u0008\u0000\u0000\u0000\u0000\u0000\u0000\u0003[2026-08-20 10:00:01 TP0] inside a gzip stream",
    "",
    "Loading safetensors checkpoint shards: 100% Completed | 163/163\n",
    "[2026-08-20T10:00:01Z] an ISO timestamp is not SGLang's prefix\n",
  ];
  for (const head of heads) assert.equal(sglangLog.detect(head), false, JSON.stringify(head.slice(0, 60)));
});

test("the format's name is the registry's", () => {
  assert.equal(sglangLog.name, "sglang-log");
});
