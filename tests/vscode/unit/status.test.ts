import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { describeAnswer, planProbe, serverCanProbe, type ProbeInputs } from '../../../client/vscode/src/probe';
import { markRuntime, RUNTIME_SOURCE, runtimeEvidence, STATIC_SOURCE } from '../../../client/vscode/src/runtime';
import { Status } from '../../../client/vscode/src/status';

describe('Status', () => {
    test('starting, then idle once running; analysing while a pull is pending', () => {
        const status = new Status();
        status.starting('python3');
        assert.equal(status.phase(), 'starting');
        status.running('python3');
        assert.equal(status.phase(), 'idle');
        const endA = status.begin('analysis');
        const endB = status.begin('analysis');
        assert.equal(status.phase(), 'analysing');
        endA();
        endA(); // ending twice counts once
        assert.equal(status.phase(), 'analysing');
        endB();
        assert.equal(status.phase(), 'idle');
    });

    test('a probe outranks analysis; an error outranks everything but disabled', () => {
        const status = new Status();
        status.running('p');
        const analysis = status.begin('analysis');
        const probe = status.begin('probe');
        assert.equal(status.phase(), 'probe');
        status.failed('the language server stopped');
        assert.equal(status.phase(), 'error');
        assert.match(status.view().tooltip, /the language server stopped/);
        assert.equal(status.view().background, 'statusBarItem.errorBackground');
        probe();
        analysis();
        status.disabled();
        assert.equal(status.phase(), 'disabled');
        status.starting('p');
        assert.equal(status.phase(), 'starting', 'a restart clears the error');
    });

    test('every phase renders a distinct text, and listeners hear each change', () => {
        const status = new Status();
        let heard = 0;
        status.onChange(() => heard++);
        const texts = new Set<string>();
        status.disabled(); texts.add(status.view().text);
        status.starting('p'); texts.add(status.view().text);
        status.running('p'); texts.add(status.view().text);
        const end = status.begin('analysis'); texts.add(status.view().text); end();
        const probe = status.begin('probe'); texts.add(status.view().text); probe();
        status.failed('x'); texts.add(status.view().text);
        assert.equal(texts.size, 6);
        assert.equal(heard, 8);
    });
});

describe('runtime-confirmed findings', () => {
    test('data.runtime with a known status is runtime evidence; anything else is static', () => {
        assert.deepEqual(runtimeEvidence({ code: 'TAPE001', runtime: { status: 'confirmed', evidence: ' grad is None ' } }),
            { status: 'confirmed', evidence: 'grad is None' });
        assert.deepEqual(runtimeEvidence({ runtime: { status: 'runtime-only' } }), { status: 'runtime-only' });
        for (const data of [undefined, null, 'x', { code: 'TAPE001', fixable: true }, { runtime: true }, { runtime: { status: 'refuted' } }]) {
            assert.equal(runtimeEvidence(data), undefined, JSON.stringify(data));
        }
    });

    test('a confirmed finding gets its own source and the evidence; a static one is untouched', () => {
        const confirmed = markRuntime({ source: STATIC_SOURCE, message: 'Inner tape shadows the outer one', data: { runtime: { status: 'confirmed', evidence: 'tape.gradient returned None' } } });
        assert.equal(confirmed.source, RUNTIME_SOURCE);
        assert.equal(confirmed.message, 'Inner tape shadows the outer one\nConfirmed at runtime: tape.gradient returned None');
        markRuntime(confirmed);
        assert.equal(confirmed.message.split('Confirmed').length, 2, 'marking twice adds nothing');

        const seen = markRuntime({ source: STATIC_SOURCE, message: 'm', data: { runtime: { status: 'runtime-only' } } });
        assert.equal(seen.message, 'm\nSeen at runtime.');

        // tapelsp's server puts the evidence in the message itself: it is not repeated.
        const told = markRuntime({ source: STATIC_SOURCE, message: 'Inner tape [confirmed at runtime: TensorFlow said on line 12: "x"]', data: { runtime: { status: 'confirmed', evidence: 'TensorFlow said on line 12: "x"' } } });
        assert.equal(told.source, RUNTIME_SOURCE);
        assert.equal(told.message, 'Inner tape [confirmed at runtime: TensorFlow said on line 12: "x"]');

        const plain = markRuntime({ source: STATIC_SOURCE, message: 'm', data: { code: 'FUNC001', fixable: true } });
        assert.deepEqual(plain, { source: STATIC_SOURCE, message: 'm', data: { code: 'FUNC001', fixable: true } });
    });
});

describe('tapelsp.probe', () => {
    const ready: ProbeInputs = { workspaceTrusted: true, serverRunning: true, experimental: { tapelspProbe: true }, probeEnabled: true, hasTarget: true };

    test('runs only when trusted, running, advertised, enabled and aimed at a file', () => {
        assert.deepEqual(planProbe(ready), { kind: 'run' });
    });

    test('a server that does not advertise the probe (an older tapelsp): the command says so and runs nothing', () => {
        for (const experimental of [undefined, null, {}, { tapelspProbe: 'yes' }]) {
            assert.equal(serverCanProbe(experimental), false);
            const plan = planProbe({ ...ready, experimental });
            assert.equal(plan.kind, 'refuse');
            assert.match((plan as { message: string }).message, /has no live probe/);
            assert.match((plan as { message: string }).message, /nothing was run/);
        }
    });

    test('the server\'s answer in one line', () => {
        assert.equal(describeAnswer('a.py', { summary: 'the program ran to the end', confirmed: 2, refuted: [{}], runtimeOnly: 0, published: true }),
            'tapelsp: probed a.py: 2 confirmed, 1 refuted, 0 runtime-only (the program ran to the end).');
        assert.match(describeAnswer('a.py', { confirmed: 1, published: false }), /changed while it ran/);
        assert.equal(describeAnswer('a.py', null), 'tapelsp: probed a.py: 0 confirmed, 0 refuted, 0 runtime-only.');
    });

    test('never in an untrusted workspace, whatever else holds', () => {
        const plan = planProbe({ ...ready, workspaceTrusted: false });
        assert.equal(plan.kind, 'refuse');
        assert.match((plan as { message: string }).message, /untrusted/);
    });

    test('disabled by setting: offers the setting; no server, no file: says so', () => {
        const disabled = planProbe({ ...ready, probeEnabled: false });
        assert.equal((disabled as { openSetting?: string }).openSetting, 'tapelsp.probe.enable');
        assert.match((planProbe({ ...ready, serverRunning: false }) as { message: string }).message, /not running/);
        assert.match((planProbe({ ...ready, hasTarget: false }) as { message: string }).message, /Open a Python file/);
    });
});
