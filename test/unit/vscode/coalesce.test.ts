import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coalesce } from '../../../src/vscode/coalesce';

void describe('coalesce', () => {
  void it('leading: the first call runs at once, a burst folds into one trailing run, a quiet window runs nothing', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const views = coalesce(() => runs++, 100, { leading: true });
    views.schedule();
    assert.equal(runs, 1, 'the first change shows without delay');
    for (let i = 0; i < 50; i++) views.schedule();
    assert.equal(runs, 1);
    t.mock.timers.tick(100);
    assert.equal(runs, 2, 'the burst in one run at the end of the window');
    t.mock.timers.tick(100);
    assert.equal(runs, 2, 'nothing new: the window closes without a run');
    views.schedule();
    assert.equal(runs, 3, 'after a quiet window the next call runs at once again');
    views.dispose();
  });

  void it('leading: a steady stream runs at most once per window', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const views = coalesce(() => runs++, 100, { leading: true });
    for (let ms = 0; ms < 1000; ms += 10) {
      views.schedule();
      t.mock.timers.tick(10);
    }
    assert.ok(runs >= 10 && runs <= 11, `${runs} runs in 1 s of calls every 10 ms`);
    views.dispose();
  });

  void it('trailing (debounce): nothing runs before the window ends; flush runs what waits; dispose drops it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const files = coalesce(() => runs++, 100);
    files.schedule();
    files.schedule();
    assert.equal(runs, 0);
    assert.equal(files.pending, true);
    t.mock.timers.tick(100);
    assert.equal(runs, 1);
    files.schedule();
    files.flush();
    assert.equal(runs, 2);
    assert.equal(files.pending, false);
    files.schedule();
    files.dispose();
    t.mock.timers.tick(500);
    assert.equal(runs, 2);
  });
});
