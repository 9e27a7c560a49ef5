// task_pragma.test.ts: the `// hone: task=` pairing line and the task picker's order.
import * as assert from 'node:assert/strict';
import { findTaskPragma, looksLikeTask, pragmaEdit, pragmaPath, rankTasks } from '../src/task_pragma';

describe('task pragma', () => {
  it('finds the pragma wherever it is, with spacing variants', () => {
    assert.deepEqual(findTaskPragma('#include "hone.h"\n//hone : task = ../tasks/softmax.py  \nvoid f();'), { line: 1, task: '../tasks/softmax.py' });
    assert.deepEqual(findTaskPragma('// hone: task="my tasks/a b.py" trailing'), { line: 0, task: 'my tasks/a b.py' });
    assert.equal(findTaskPragma('// task=x.py\n'), undefined);
    assert.equal(findTaskPragma('int x; // hone: task=x.py'), undefined, 'only a whole-line comment pairs');
  });

  it('replaces an existing pragma or inserts one on the first line, keeping CRLF files CRLF', () => {
    assert.deepEqual(pragmaEdit('a\n// hone: task=old.py\nb', 'new.py'), { line: 1, replaceLine: true, newText: '// hone: task=new.py' });
    assert.deepEqual(pragmaEdit('#include <x>\n', 't.py'), { line: 0, replaceLine: false, newText: '// hone: task=t.py\n' });
    assert.deepEqual(pragmaEdit('a\r\nb', 't.py'), { line: 0, replaceLine: false, newText: '// hone: task=t.py\r\n' });
    assert.equal(pragmaEdit('', 'my tasks/a b.py').newText, '// hone: task="my tasks/a b.py"\n');
  });

  it('writes task paths relative to the kernel folder', () => {
    assert.equal(pragmaPath('/w/kernels/softmax.cu', '/w/tasks/softmax.py'), '../tasks/softmax.py');
    assert.equal(pragmaPath('/w/softmax.cu', '/w/softmax.py'), 'softmax.py');
  });

  it('recognises KernelBench task files', () => {
    assert.ok(looksLikeTask('import torch\nclass Model(nn.Module):\n    pass\ndef get_inputs():\n    return []\n'));
    assert.ok(!looksLikeTask('class ModelX(nn.Module): pass\ndef get_inputs(): pass'));
    assert.ok(!looksLikeTask('class Model(nn.Module): pass\n'));
  });

  it('ranks the same stem first, then the kernel folder, then the rest', () => {
    assert.deepEqual(rankTasks('/w/k/softmax.cu', ['/w/b.py', '/w/k/z.py', '/w/t/softmax.py', '/w/a.py']), ['/w/t/softmax.py', '/w/k/z.py', '/w/a.py', '/w/b.py']);
  });
});
