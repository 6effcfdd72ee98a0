"""Per-file sessions and turns of the shared corpus, checked by hand and by an independent
count of typed prompts (user lines that are not tool results, isMeta, harness wrappers or
compaction summaries, each uuid counted once, parents before their subagents)."""

EXPECTED: dict[str, tuple[int, int]] = {
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/0b903f4a-f843-4a76-90bb-df10400e0478.jsonl": (
        1,
        1,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/1fb5e404-604d-4a2b-baf1-3beb42a67371.jsonl": (
        1,
        64,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/1fb5e404-604d-4a2b-baf1-3beb42a67371/subagents/agent-aa9b6813c05338fac.jsonl": (
        1,
        1,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl": (
        1,
        7,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/44ef5cbf-9cc3-4f7b-ac40-337a4d39713b/subagents/agent-a71969c1296961234.jsonl": (
        1,
        1,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/5fbb940a-c7f3-404d-bf66-a028fcc250ec.jsonl": (
        1,
        33,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/6c7ec02b-03cc-41ca-a80f-09763e985c4d/subagents/agent-aa13521ec9928da7d.jsonl": (
        1,
        1,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/8c880a68-969b-4b92-8733-a4927179d072.jsonl": (
        1,
        5,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/8fd119a6-9ab8-407b-810f-329cfb6153e0.jsonl": (
        1,
        28,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/8fd119a6-9ab8-407b-810f-329cfb6153e0/subagents/agent-a520480fc0182e0d7.jsonl": (
        1,
        1,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/8fd119a6-9ab8-407b-810f-329cfb6153e0/subagents/agent-aside_question-ac9ee4804d56a951.jsonl": (
        1,
        0,
    ),
    "4thehalibit__omarchy-backup/.claude/projects/-home-vwestberg-Claude/a12d49f7-99d4-4568-af07-d149858678db.jsonl": (
        0,
        0,
    ),
    "Crazytieguy__alignment-hive/hive-mind/cli/lib/fixtures/6f2580aa-3095-45b7-8d4e-dd8cac7eeffe.jsonl": (
        1,
        7,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/C--Users-loganf-Documents-IDAHO-VAULT--claude-worktrees-eloquent-lichterman/25924d0f-be49-402b-a8fc-7faa1ff19fad.jsonl": (
        1,
        33,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/C--Users-loganf-Documents-IDAHO-VAULT--claude-worktrees-eloquent-lichterman/25924d0f-be49-402b-a8fc-7faa1ff19fad/subagents/agent-a21febdaa00bf96d2.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/05541cb5-fe43-41c9-87ef-2a6d89bba271.jsonl": (
        1,
        51,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/05541cb5-fe43-41c9-87ef-2a6d89bba271/subagents/agent-a6e0641177278d14c.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/0e973150-6151-404d-968f-a07b3f204eb3.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/237326ca-5e6a-4313-b3dd-44df36143943.jsonl": (
        1,
        8,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/237326ca-5e6a-4313-b3dd-44df36143943/subagents/agent-aside_question-7a81e4850e48fc1e.jsonl": (
        1,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/2396f0ca-7e26-481e-a6fc-1909b09c62dc.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/2396f0ca-7e26-481e-a6fc-1909b09c62dc/subagents/agent-ab264425436dc6d28.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/41a308c7-b1e0-4819-ab03-4f553a17c6e0.jsonl": (
        1,
        2,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/5c04fe06-649f-4946-8625-2a3482121664.jsonl": (
        1,
        2,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/61dcf75d-56df-459d-b351-729550898806.jsonl": (
        1,
        36,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/61dcf75d-56df-459d-b351-729550898806/subagents/agent-a12d6440a756ccd84.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/61dcf75d-56df-459d-b351-729550898806/subagents/agent-acompact-8d29248259aa9c0e.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/91c096b1-bf02-45e4-8597-45611fbcb8cc.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/9f76d25d-1f33-4fbb-bff8-d3a7c5cfe15d.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/ad723d79-d1aa-4c89-9a82-926c1918e7ee.jsonl": (
        1,
        15,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/ad723d79-d1aa-4c89-9a82-926c1918e7ee/subagents/agent-a748a8288f97dda64.jsonl": (
        1,
        1,
    ),
    "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/ca2442ad-2504-45cb-8b0f-adb8df732dc7.jsonl": (
        1,
        2,
    ),
    "LAF-US__IDAHO-VAULT/.codex/archived_sessions/rollout-2026-03-23T01-39-29-019d19a2-6ff2-7cf3-a8e7-16f38b9dee35.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/archived_sessions/rollout-2026-03-23T19-51-32-019d1d8a-4053-7f93-b610-7061e9b7a152.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/archived_sessions/rollout-2026-03-28T16-25-46-019d368d-a650-7db0-9143-3effeda1048a.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/session_index.jsonl": (0, 0),
    "LAF-US__IDAHO-VAULT/.codex/sessions/2026/04/10/rollout-2026-04-10T09-55-11-019d781a-be34-7041-abb1-577f9360b907.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/sessions/2026/04/15/rollout-2026-04-15T11-58-23-019d924b-53f5-78f1-a0d4-69aa13191f54.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/sessions/2026/04/19/rollout-2026-04-19T21-55-01-019da907-0117-7d33-bc07-031000ff1176.jsonl": (
        0,
        0,
    ),
    "LAF-US__IDAHO-VAULT/.codex/sessions/2026/04/19/rollout-2026-04-19T22-04-58-019da910-1d2d-7883-b552-6e3adf8a4ed9.jsonl": (
        0,
        0,
    ),
    "M-Thisness__M-Claude/Archives/0a8fc187-681a-4c42-9538-ba0f628ee289.jsonl": (1, 2),
    "M-Thisness__M-Claude/Archives/21037e11-89de-484d-abba-8705254aa991.jsonl": (1, 14),
    "M-Thisness__M-Claude/Archives/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl": (1, 8),
    "M-Thisness__M-Claude/Archives/3af9b1a7-6512-4883-ad18-320658ced099.jsonl": (1, 10),
    "M-Thisness__M-Claude/Archives/3cfce0ff-0725-47be-a572-f8af8122b71e.jsonl": (1, 10),
    "M-Thisness__M-Claude/Archives/554b9fa6-f719-40e8-ba70-beee69bd60b5.jsonl": (1, 3),
    "M-Thisness__M-Claude/Archives/8d471a2e-e373-408e-aaf4-81e16e07898c.jsonl": (1, 7),
    "M-Thisness__M-Claude/Archives/93a38075-1e1b-4210-978f-8e927e43b55b.jsonl": (1, 1),
    "M-Thisness__M-Claude/Archives/abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl": (1, 5),
    "M-Thisness__M-Claude/Archives/agent-a17266e.jsonl": (1, 1),
    "M-Thisness__M-Claude/Archives/agent-abc3cb6.jsonl": (1, 1),
    "M-Thisness__M-Claude/Archives/cc9f9e19-22a8-4a46-93a1-88d6d1b675b9.jsonl": (0, 0),
    "M-Thisness__M-Claude/Archives/e6804af6-fe01-478c-9e10-75e94f3e93cb.jsonl": (0, 0),
    "Zatoichi-42__claude-zibe/.claude/projects/-home-zorrik-Projects-Sentinel/233f3f06-aec8-4e4c-9da6-0ac730f2a265.jsonl": (
        1,
        0,
    ),
    "Zatoichi-42__claude-zibe/.claude/projects/-home-zorrik-Projects-Sentinel/4eb362e5-e40d-4f92-be47-a5eb907628b9.jsonl": (
        1,
        9,
    ),
    "Zatoichi-42__claude-zibe/.claude/projects/-home-zorrik-Projects-Sentinel/4eb362e5-e40d-4f92-be47-a5eb907628b9/subagents/agent-a07a9762b84dff5e9.jsonl": (
        1,
        2,
    ),
    "Zatoichi-42__claude-zibe/.claude/projects/-home-zorrik-Projects-Sentinel/d83d30c3-1b46-4c7c-b036-e069e29359bf.jsonl": (
        0,
        0,
    ),
    "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/agent-test-hash-123.jsonl": (
        1,
        1,
    ),
    "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": (
        2,
        6,
    ),
    "madshn__localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl": (
        0,
        0,
    ),
    "madshn__localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl": (
        0,
        0,
    ),
    "marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl": (1, 3),
    "marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl": (
        1,
        1,
    ),
    "marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl": (
        1,
        1,
    ),
    "marot__spotter/test/fixtures/transcripts/short.jsonl": (1, 1),
    "marot__spotter/test/fixtures/transcripts/subagent.jsonl": (1, 1),
    "marot__spotter/test/fixtures/transcripts/tool_heavy.jsonl": (1, 2),
    "moredip__session-share/samples/claude-code-projects/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl": (
        1,
        6,
    ),
    "moredip__session-share/samples/claude-code-projects/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl": (
        1,
        1,
    ),
    "moredip__session-share/samples/claude-code-projects/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a9cad17.jsonl": (
        1,
        1,
    ),
    "moredip__session-share/samples/claude-code-projects/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl": (
        1,
        1,
    ),
    "moredip__session-share/samples/claude-code-projects/4b2030ed-5563-49ea-b703-6a002f2d3cc8/subagents/agent-a2018e5.jsonl": (
        1,
        1,
    ),
    "obra__episodic-memory/test/fixtures/large-conversation.jsonl": (1, 21),
    "obra__episodic-memory/test/fixtures/long-conversation.jsonl": (1, 15),
    "obra__episodic-memory/test/fixtures/medium-conversation.jsonl": (0, 0),
    "obra__episodic-memory/test/fixtures/short-conversation.jsonl": (1, 1),
    "obra__episodic-memory/test/fixtures/tiny-conversation.jsonl": (1, 2),
    "simonw__claude-code-transcripts/tests/sample_codex_session.jsonl": (0, 0),
}
