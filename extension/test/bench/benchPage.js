// In-page half of treeBench.ts: builds the tree, streams updates at a fixed
// rate through the webview's real message path, records every frame's duration.
window.arborBench = ({ seconds, subtasks, children, rate, childDepth }) =>
  new Promise((resolve) => {
    const post = (m) => window.postMessage(m, '*');
    const ids = [];
    post({
      type: 'tree',
      turnId: 't',
      nodes: [{ id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 }],
    });
    for (let s = 0; s < subtasks; s++) {
      const sid = `s${s}`;
      ids.push({
        id: sid,
        parentId: 't',
        kind: 'subtask',
        name: 'run_subtask',
        depth: 0,
        title: `Subtask ${s}`,
      });
      for (let c = 0; c < children; c++)
        ids.push({
          id: `${sid}.${c}`,
          parentId: sid,
          kind: 'tool',
          name: 'grep',
          depth: childDepth,
        });
    }
    // The tree arrives in batches of 100 upserts, as a busy daemon would send it.
    for (let i = 0; i < ids.length; i += 100) {
      post({
        type: 'tree',
        turnId: 't',
        nodes: ids
          .slice(i, i + 100)
          .map((n) => ({ ...n, status: 'pending', argsPreview: '{"pattern":"TODO"}' })),
      });
    }
    const frames = [];
    let last = 0;
    let updates = 0;
    const statuses = ['running', 'done', 'error'];
    setTimeout(() => {
      const start = performance.now();
      const tick = (now) => {
        if (last) frames.push(now - last);
        last = now;
        if (now - start < seconds * 1000) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      // `rate` updates/s: rate/100 every 10 ms, each one node's status, duration and result;
      // every 50th update also streams a word of answer text.
      const timer = setInterval(() => {
        for (let k = 0; k < rate / 100; k++) {
          const n = ids[(updates * 7919) % ids.length];
          post({
            type: 'tree',
            turnId: 't',
            nodes: [
              {
                ...n,
                status: statuses[updates % 3],
                durationMs: updates % 1000,
                resultPreview: `result ${updates}`,
              },
            ],
          });
          if (updates % 50 === 0)
            post({
              type: 'text',
              turnId: 't',
              nodeId: 't',
              seq: updates + 1,
              text: `word${updates} `,
            });
          updates++;
        }
        if (performance.now() - start >= seconds * 1000) {
          clearInterval(timer);
          setTimeout(
            () =>
              resolve({
                frames,
                updates,
                nodes: ids.length,
                cards: document.querySelectorAll('.card').length,
              }),
            50,
          );
        }
      }, 10);
    }, 500);
  });
