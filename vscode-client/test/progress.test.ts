import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ProgressHost, ProgressTracker, type ProgressValue } from '../src/progress';

/** A recording host: what the editor would show, and what would go to the server. */
function recordingHost() {
  const handlers = new Map<string | number, (v: ProgressValue) => void>();
  const events: string[] = [];
  const cancelListeners: Array<() => void> = [];
  let settled: Promise<void> | undefined;
  const host: ProgressHost = {
    onProgress: (token, handler) => {
      handlers.set(token, handler);
      return { dispose: () => handlers.delete(token) };
    },
    cancel: (token) => events.push(`cancel ${token}`),
    show: (options, task) => {
      events.push(`show "${options.title}" cancellable=${options.cancellable}`);
      settled = task(
        (update) => events.push(`report ${update.message ?? ''} +${update.increment ?? '-'}`),
        (listener) => cancelListeners.push(listener),
      ).then(() => {
        events.push('closed');
      });
    },
  };
  return { host, handlers, events, cancelListeners, settled: () => settled };
}

describe('server progress as a cancellable notification', () => {
  it('shows, reports, cancels through window/workDoneProgress/cancel, and closes at end', async () => {
    const rec = recordingHost();
    const tracker = new ProgressTracker(rec.host);
    tracker.create('tok-1');
    assert.ok(tracker.active.has('tok-1'));
    const send = rec.handlers.get('tok-1')!;
    send({ kind: 'begin', title: 'NNIE triage', cancellable: true, message: 'mapper_quant' });
    send({ kind: 'report', message: 'comparing dumps… 1 s' });
    send({ kind: 'report', message: 'half', percentage: 50 });
    send({ kind: 'report', message: 'back', percentage: 40 });
    rec.cancelListeners[0]();
    send({ kind: 'end', message: 'cancelled' });
    await rec.settled();
    assert.deepEqual(rec.events, [
      'show "NNIE triage" cancellable=true',
      'report mapper_quant +-',
      'report comparing dumps… 1 s +-',
      'report half +50',
      'report back +0',
      'cancel tok-1',
      'closed',
    ]);
    assert.ok(!tracker.active.has('tok-1'));
    assert.ok(!rec.handlers.has('tok-1'), 'the $/progress subscription is disposed at end');
  });
  it('an end that arrives before the editor shows the progress still closes it', async () => {
    const host = recordingHost();
    let task: (() => Promise<void>) | undefined;
    const lateHost: ProgressHost = {
      ...host.host,
      show: (_options, run) => {
        task = () => run(() => undefined, () => undefined);
      },
    };
    const tracker = new ProgressTracker(lateHost);
    tracker.create(7);
    const send = host.handlers.get(7)!;
    send({ kind: 'begin', title: 'NNIE emulate', cancellable: false });
    send({ kind: 'end' });
    await task!(); // resolves at once: the end was already seen
    assert.equal(tracker.active.size, 0);
  });
});
