// Version knowledge lives in one place, the profile's SGLANG_RELEASES and
// CHANGES (analyzer/model/profile.ts): profile selection, the log signs'
// version bounds and the A/B diff's unhandled-abort sensitivity follow an edit
// of those lists. Each test edits the real lists and puts them back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { abortHandlingFor, CHANGES, latestRelease, nixlPrefillDiesOnAbort, SGLANG_RELEASES } from "../../analyzer/model/profile.js";
import { selectProfile } from "../../analyzer/replay/profileSelection.js";
import { findSigns } from "../../analyzer/replay/logSigns.js";
import { ingestCase } from "./incidents.js";

async function withRelease<T>(version: string, run: () => Promise<T>): Promise<T> {
  SGLANG_RELEASES.push(version);
  try {
    return await run();
  } finally {
    SGLANG_RELEASES.pop();
  }
}

async function withChangeIn<T>(change: keyof typeof CHANGES, since: string, run: () => Promise<T>): Promise<T> {
  const was = CHANGES[change].since;
  CHANGES[change].since = since;
  try {
    return await run();
  } finally {
    CHANGES[change].since = was;
  }
}

test("the covered releases run 0.5.3 to 0.5.18 (pd §0)", () => {
  assert.equal(SGLANG_RELEASES[0], "0.5.3");
  assert.equal(latestRelease(), "0.5.18");
  assert.equal(SGLANG_RELEASES.length, 16);
});

test("a release added to the profile is the default version, and the upper bound of what logs allow", async () => {
  await withRelease("0.5.19", async () => {
    const { db: noVersion } = await ingestCase("nsa-hicache-logs");
    const choice = selectProfile(noVersion);
    assert.equal(choice.profile.version, "0.5.19");
    assert.equal(choice.reasons.find((r) => r.field === "version")?.origin, "default");
    noVersion.close();

    // #optimistic-req and Mooncake ABORT_ACK: at least 0.5.16, and now at most the new release.
    const { db: fromLogs } = await ingestCase("mooncake-overlap-logs");
    const version = selectProfile(fromLogs).reasons.find((r) => r.field === "version")!;
    assert.equal(version.value, "0.5.19");
    assert.match(version.why, /\[0\.5\.16, 0\.5\.19\]/);
    fromLogs.close();
    assert.equal(nixlPrefillDiesOnAbort("0.5.19"), false);
  });
  assert.equal(latestRelease(), "0.5.18");
});

test("a change moved to a later release moves the model's rule, the log bounds and the diff's sensitivity", async () => {
  await withChangeIn("decodeSendsAbort", "0.5.14", async () => {
    assert.equal(nixlPrefillDiesOnAbort("0.5.13"), false, "decode sends no ABORT before the change");
    assert.equal(abortHandlingFor("nixl", "0.5.13"), "fatal-assert");
    // decode's "Sent abort notification" line: at least the release that sends ABORT; no #optimistic-req: at most 0.5.15.
    const { db } = await ingestCase("nixl-abort-wedge");
    const version = selectProfile(db).reasons.find((r) => r.field === "version")!;
    assert.match(version.why, /\[0\.5\.14, 0\.5\.15\]/);
    assert.ok(findSigns(db).some((s) => s.versionMin === "0.5.14"));
    db.close();
  });
  await withRelease("0.5.19", () =>
    withChangeIn("nixlAbortHandler", "0.5.19", async () => {
      assert.equal(abortHandlingFor("nixl", "0.5.18"), "fatal-assert");
      assert.equal(nixlPrefillDiesOnAbort("0.5.18"), true);
      assert.equal(nixlPrefillDiesOnAbort("0.5.19"), false);
    }),
  );
  assert.equal(nixlPrefillDiesOnAbort("0.5.13"), true);
  assert.equal(nixlPrefillDiesOnAbort("0.5.15"), true);
  assert.equal(nixlPrefillDiesOnAbort("0.5.16"), false);
  assert.equal(nixlPrefillDiesOnAbort("0.5.12"), false, "decode sends no ABORT before #27372");
  assert.equal(nixlPrefillDiesOnAbort("not a version"), false);
});
