"""tests/optimize/fake_llm_server.py: a local OpenAI-compatible chat completions server for hone's
optimizer tests: real HTTP (http.server), real SSE, replies scripted by a JSON file.

Usage: python3 fake_llm_server.py SCRIPT.json REQUESTS.jsonl
Prints "PORT <n>" on stdout once it listens on 127.0.0.1. The script is re-read on every request
(tests rewrite it between calls), and every request is appended to REQUESTS.jsonl as
{"path", "headers", "body"}.

Script: {"rules": [{"match": "text" | null, "times": n | null, "response": {...}}, ...]}
The first rule whose `match` occurs in the last user message (null matches anything) and whose
`times` is not used up answers. Response fields (all optional):
  status (200), headers ({}), error ({"message", "type"}: a JSON error body),
  reasoning (streamed as reasoning_content deltas), think_inline (true: reasoning goes into the
  content as <think>...</think>), content, chunk_chars (16), delay_s (before the headers),
  chunk_delay_s, drop_after_chunks (close the connection mid-stream), done (true: send [DONE]),
  finish (true: send finish_reason), usage (true: computed; false: none; or an object),
  stream (true; false: one JSON completion), framing ("chunked" | "close"), keepalive (false),
  stream_error (an error object sent as a data chunk after the content).
"""
import http.server
import json
import os
import socket
import sys
import threading
import time

SCRIPT_PATH, LOG_PATH = sys.argv[1], sys.argv[2]
lock = threading.Lock()
state = {"script_text": None, "used": {}}


def pick_rule(last_user):
    with lock:
        try:
            with open(SCRIPT_PATH) as f:
                text = f.read()
        except FileNotFoundError:
            text = '{"rules": []}'
        if text != state["script_text"]:
            state["script_text"] = text
            state["used"] = {}
        rules = json.loads(text).get("rules", [])
        for i, rule in enumerate(rules):
            match = rule.get("match")
            if match is not None and match not in last_user:
                continue
            times = rule.get("times")
            used = state["used"].get(i, 0)
            if times is not None and used >= times:
                continue
            state["used"][i] = used + 1
            return rule.get("response", {})
    return {"status": 500, "error": {"message": "fake server: no rule matches", "type": "test_script"}}


def pieces(text, n):
    return [text[i:i + n] for i in range(0, len(text), n)] if text else []


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        with lock:
            with open(LOG_PATH, "a") as f:
                f.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body,
                                    "time": time.time()}) + "\n")
        if not self.path.endswith("/chat/completions"):
            return self.send_json(404, {"error": {"message": "not found: " + self.path}})
        users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
        r = pick_rule(users[-1] if users else "")
        time.sleep(r.get("delay_s", 0))
        status = r.get("status", 200 if "error" not in r else 500)
        if status != 200 or "error" in r:
            return self.send_json(status, {"error": r.get("error", {"message": "scripted failure"})},
                                  r.get("headers", {}))
        reasoning, content = r.get("reasoning", ""), r.get("content", "")
        if r.get("think_inline"):
            content, reasoning = "<think>\n" + reasoning + "\n</think>\n\n" + content, ""
        usage = r.get("usage", True)
        if usage is True:
            prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
            usage = {"prompt_tokens": prompt_chars // 4 + 1,
                     "completion_tokens": (len(content) + len(reasoning)) // 4 + 1,
                     "completion_tokens_details": {"reasoning_tokens": len(reasoning) // 4}}
        if not r.get("stream", True) or not body.get("stream"):
            reply = {"id": "cmpl-1", "object": "chat.completion", "model": body.get("model"),
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": content,
                                              "reasoning_content": reasoning or None}}]}
            if usage:
                reply["usage"] = usage
            return self.send_json(200, reply, r.get("headers", {}))
        self.stream(r, body, reasoning, content, usage)

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, r, body, reasoning, content, usage):
        chunked = r.get("framing", "chunked") == "chunked"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        for k, v in r.get("headers", {}).items():
            self.send_header(k, str(v))
        self.end_headers()

        def send(text):
            data = text.encode()
            if chunked:
                data = b"%x\r\n" % len(data) + data + b"\r\n"
            self.wfile.write(data)
            self.wfile.flush()

        def event(obj):
            send("data: " + json.dumps(obj) + "\n\n")

        def chunk(delta, finish=None):
            return {"id": "cmpl-1", "object": "chat.completion.chunk", "model": body.get("model"),
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        n = r.get("chunk_chars", 16)
        deltas = [{"role": "assistant", "content": ""}]
        deltas += [{"reasoning_content": p, "content": None} for p in pieces(reasoning, n)]
        deltas += [{"content": p} for p in pieces(content, n)]
        drop = r.get("drop_after_chunks")
        for i, d in enumerate(deltas):
            if drop is not None and i >= drop:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if r.get("keepalive"):
                send(": keep-alive\n\n")
            event(chunk(d))
            time.sleep(r.get("chunk_delay_s", 0))
        if "stream_error" in r:
            event({"error": r["stream_error"]})
        if r.get("finish", True):
            event(chunk({}, "stop"))
        if usage:
            event({"id": "cmpl-1", "object": "chat.completion.chunk", "model": body.get("model"),
                   "choices": [], "usage": usage})
        if r.get("done", True):
            send("data: [DONE]\n\n")
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = not chunked


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT", server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
