// The TypeScript client against a real `agent-hooks serve` ($AGENT_HOOKS_BIN) on a workspace of
// sh hooks: a guard that blocks `rm -rf` and rewrites `ls`, a post_tool_call recorder and an
// on_stop verifier that asks for one redo.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import {
  AgentHooks,
  AgentHooksError,
  BadRequest,
  Sidecar,
  TooLarge,
  Unavailable,
  agentText,
  type Diagnostic,
} from "../src/index";

const BIN = process.env.AGENT_HOOKS_BIN ?? "agent-hooks";

const HOOKS: Record<string, string> = {
  "guard.sh": `input=$(cat)
case "$input" in
  *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
  *'"command":"ls"'*) echo "guard looked" >&2; echo '{"tool_input": {"command": "ls -a"}}' ;;
esac
`,
  "post.sh": `cat >> "$AGENT_HOOKS_WORKSPACE/post.jsonl"; echo >> "$AGENT_HOOKS_WORKSPACE/post.jsonl"\n`,
  "verify.sh": `case "$(cat)" in *'"stop_hook_active":false'*) echo '{"decision": "block", "reason": "run the tests first"}' ;; esac\n`,
};

function workspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-hooks-ts-client"));
  fs.mkdirSync(path.join(root, "config"));
  fs.mkdirSync(path.join(root, "hooks"));
  fs.writeFileSync(path.join(root, "config/agent.yaml"), "shell_hooks:\n  enabled: true\n");
  fs.writeFileSync(
    path.join(root, "config/shell_hooks.yaml"),
    "hooks:\n" +
      "  - {event: pre_tool_call, command: hooks/guard.sh, name: guard}\n" +
      "  - {event: post_tool_call, command: hooks/post.sh, name: post}\n" +
      "  - {event: on_stop, command: hooks/verify.sh, name: verify}\n",
  );
  for (const [name, body] of Object.entries(HOOKS)) {
    fs.writeFileSync(path.join(root, "hooks", name), "#!/bin/sh\n" + body, { mode: 0o755 });
    execFileSync(BIN, ["--workspace", root, "approve", "hooks/" + name], { stdio: "ignore" });
  }
  return root;
}

function posts(root: string): Record<string, unknown>[] {
  const file = path.join(root, "post.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

test("the client against a real sidecar", async (t) => {
  const root = workspace();
  const sidecar = await Sidecar.start(root, BIN);
  const hooks = new AgentHooks(sidecar.url);
  try {
    await t.test("the sidecar is on its socket, and the default URL finds it", async () => {
      assert.ok(sidecar.url.startsWith("unix:"), sidecar.url);
      const saved = process.env.AGENT_HOOKS_WORKSPACE;
      process.env.AGENT_HOOKS_WORKSPACE = root;
      const found = new AgentHooks();
      if (saved === undefined) delete process.env.AGENT_HOOKS_WORKSPACE;
      else process.env.AGENT_HOOKS_WORKSPACE = saved;
      assert.equal(found.url, sidecar.url);
      assert.equal((await found.health()).workspace, fs.realpathSync(root));
      found.close();
    });
    await t.test("dispatch returns diagnostics and the changed fields", async () => {
      const outcome = await hooks.dispatch("pre_tool_call", { tool_name: "bash", tool_input: { command: "ls" } });
      assert.deepEqual(outcome.payload.tool_input, { command: "ls -a" });
      assert.deepEqual(outcome.changed, ["tool_input"]);
      const stderr = outcome.diagnostics.filter((d) => d.type === "hook_stderr");
      assert.deepEqual(stderr.map((d) => [d.hook, d.detail]), [["guard", "guard looked"]]);
    });
    await t.test("a blocked call never runs the tool and post_tool_call sees it", async () => {
      const ran: unknown[] = [];
      const call = await hooks.callTool("s1", "bash", { command: "rm -rf /" }, (i) => ran.push(i));
      assert.deepEqual(ran, []);
      assert.equal(call.status, "blocked");
      assert.equal(agentText(call), "[blocked by a hook] no rm -rf");
      const [post] = posts(root);
      assert.equal(post.status, "blocked");
      assert.equal(post.block_reason, "no rm -rf");
    });
    await t.test("the tool runs with the rewritten input; a throw is an error with its class", async () => {
      const call = await hooks.callTool("s1", "bash", { command: "ls" }, async (i) => `ran ${(i as { command: string }).command}`);
      assert.equal(call.status, "success");
      assert.equal(call.result, "ran ls -a");
      assert.deepEqual(call.outcomes.map((o) => o.event), ["pre_tool_call", "transform_tool_result", "post_tool_call"]);
      const thrown = new RangeError("denied");
      const failed = await hooks.callTool(
        "s1",
        "bash",
        { command: "cat x" },
        () => {
          throw thrown;
        },
        { reraise: false },
      );
      assert.equal(failed.status, "error");
      assert.equal(failed.error, thrown);
      const last = posts(root).pop();
      assert.equal(last?.error_class, "RangeError");
      // By default the tool's own exception is thrown again, after post_tool_call saw it.
      await assert.rejects(
        hooks.callTool("s1", "bash", { command: "cat y" }, () => {
          throw thrown;
        }),
        (e: unknown) => e === thrown,
      );
      assert.equal(posts(root).pop()?.error, "denied");
    });
    await t.test("callTool passes the host's fields and may skip transform", async () => {
      const call = await hooks.callTool("s1", "read", { path: "a" }, () => "text", {
        fields: { channel_id: "c1" },
        transform: false,
      });
      assert.deepEqual(call.outcomes.map((o) => o.event), ["pre_tool_call", "post_tool_call"]);
      const last = posts(root).pop();
      assert.equal(last?.channel_id, "c1");
      assert.equal(last?.tool_result, "text");
      await assert.rejects(
        hooks.callTool("s1", "read", {}, () => "x", { fields: { status: "x", tool_name: "y" } }),
        (e: unknown) => e instanceof TypeError && /status, tool_name/.test(e.message),
      );
    });
    await t.test("reload, approve and command answer typed", async () => {
      const reloaded = await hooks.reload();
      assert.equal(reloaded.hooks, 3);
      assert.deepEqual(reloaded.errors, []);
      const approved = await hooks.approve("hooks/guard.sh");
      assert.equal(approved.ok, true);
      assert.match(await hooks.command("list"), /guard/);
    });
    await t.test("a turn redoes once, then stops", async () => {
      const turn = hooks.turn("s1");
      assert.deepEqual(await turn.stop("done"), { kind: "redo", reason: "run the tests first" });
      assert.deepEqual(await turn.stop("done"), { kind: "stop", warnings: [] });
    });
    await t.test("an unknown event is an error with a suggestion", async () => {
      await assert.rejects(hooks.dispatch("pre_tool", {}), (e: unknown) => {
        assert.ok(e instanceof AgentHooksError);
        assert.equal(e.status, 404);
        assert.match(e.detail, /did you mean "pre_tool_call"/);
        return true;
      });
    });
  } finally {
    hooks.close();
    assert.equal(await sidecar.stop(), 0);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("the client over loopback TCP sends the token file's token", async () => {
  const root = workspace();
  const sidecar = await Sidecar.start(root, BIN, [], "127.0.0.1:0");
  const hooks = new AgentHooks(sidecar.url);
  const stranger = new AgentHooks(sidecar.url, 150_000, "0".repeat(64));
  try {
    assert.ok(sidecar.url.startsWith("http://127.0.0.1:"), sidecar.url);
    const listed = await hooks.hooks();
    assert.deepEqual(listed.hooks.map((h) => h.name), ["guard", "post", "verify"]);
    await assert.rejects(stranger.hooks(), (e: unknown) => {
      assert.ok(e instanceof AgentHooksError);
      assert.equal(e.status, 401);
      return true;
    });
  } finally {
    hooks.close();
    stranger.close();
    assert.equal(await sidecar.stop(), 0);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("errors have a class per cause, and the host owns the lifecycle by default", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-hooks-ts-life"));
  const skill = path.join(root, "skills", "probe");
  fs.mkdirSync(skill, { recursive: true });
  fs.writeFileSync(
    path.join(skill, "hooks.json"),
    JSON.stringify({
      hooks: [
        {
          name: "life",
          command: "cat > /dev/null; echo $HOOK_EVENT >> life.txt",
          events: ["pre_startup", "post_startup", "pre_shutdown", "post_shutdown"],
        },
        { name: "mark", command: "cat > /dev/null; echo $MARK >> mark.txt", events: ["pre_prompt"] },
        { name: "fails", command: "cat > /dev/null; echo broke >&2; exit 3", events: ["post_tool_call"] },
      ],
    }),
  );
  const lines = (name: string): string[] => {
    const file = path.join(skill, name);
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split(/\s+/).filter((l) => l) : [];
  };
  const sidecar = await Sidecar.start(root, BIN, [], undefined, { env: { MARK: "from-start" } });
  const hooks = new AgentHooks(sidecar.url);
  try {
    await hooks.dispatch("pre_prompt", { prompt: "hi" });
    // The host's environment at call time reaches the hooks over the one the sidecar started with.
    await hooks.dispatch("pre_prompt", { prompt: "hi" }, { env: { MARK: "per-call" } });
    // Diagnostics are typed records: an exit status is a number, the tool is named.
    const post = await hooks.dispatch("post_tool_call", { tool_name: "bash", tool_input: {}, tool_result: "", status: "success" });
    const failed = post.diagnostics.find((d: Diagnostic) => d.type === "hook_nonzero_exit");
    assert.ok(failed, JSON.stringify(post.diagnostics));
    assert.equal(failed.returncode, 3);
    assert.equal(failed.event, "post_tool_call");
    assert.equal(failed.hook, "fails");
    await assert.rejects(hooks.dispatch("pre_tool", {}), (e: unknown) => e instanceof BadRequest && e.status === 404);
    await assert.rejects(
      hooks.dispatch("pre_tool_call", { tool: "bash", args: {} }),
      (e: unknown) => e instanceof BadRequest && e.status === 400 && e.detail.includes("tool_name"),
    );
    const gone = new AgentHooks("unix:" + path.join(root, "no.sock"));
    await assert.rejects(gone.health(), (e: unknown) => e instanceof Unavailable && e instanceof AgentHooksError);
    gone.close();
  } finally {
    hooks.close();
    assert.equal(await sidecar.stop(), 0);
  }
  assert.deepEqual(lines("life.txt"), []);
  assert.deepEqual(lines("mark.txt"), ["from-start", "per-call"]);
  const owned = await Sidecar.start(root, BIN, [], undefined, { hostLifecycle: false });
  assert.equal(await owned.stop(), 0);
  assert.deepEqual(lines("life.txt"), ["pre_startup", "post_startup", "pre_shutdown", "post_shutdown"]);
  fs.rmSync(root, { recursive: true, force: true });
});

test("a request beyond the sidecar's cap fails the hooks, never the tool call", async () => {
  const root = workspace();
  fs.appendFileSync(path.join(root, "config/agent.yaml"), "sidecar:\n  max_body: 4096\n");
  const sidecar = await Sidecar.start(root, BIN);
  const hooks = new AgentHooks(sidecar.url);
  try {
    await assert.rejects(
      hooks.dispatch("on_session_end", { status: "x".repeat(10000) }),
      (e: unknown) => e instanceof TooLarge && e instanceof AgentHooksError && e.status === 413,
    );
    const text = "y".repeat(10000);
    const call = await hooks.callTool("s1", "write", { text }, (i) => (i as { text: string }).text.length);
    assert.equal(call.status, "success");
    assert.equal(call.result, 10000);
    assert.equal(call.warnings.length, 2, JSON.stringify(call.warnings));
    assert.match(call.warnings[0], /the hooks did not run on pre_tool_call/);
    assert.equal(call.outcomes[0].diagnostics[0].type, "hook_payload_too_large");
  } finally {
    hooks.close();
    assert.equal(await sidecar.stop(), 0);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
