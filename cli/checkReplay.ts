// `streamjoin check --replay FILE`: replay a counterexample file on the
// preset it names, print each step's changes and the property's verdict at
// the end (or the JSON report, or CI test cases).
import { InputError, loadCounterexample } from '../spec/index.ts';
import { evaluateProperty, jsonDiff, replayPath, resolveBounds, type Model, type ModelPreset } from '../model/index.ts';
import type { Output } from './output.ts';
import { EXIT } from './exitCodes.ts';
import { emitReports, reporterOnStdout, type Reporter } from './reporters/emit.ts';
import type { CiResult } from './reporters/testCases.ts';
import { reportHeader } from './version.ts';
import { CHECK_REPLAY_REPORT_FORMAT, verdictOf, presetList, boundsText } from './checkOutput.ts';

export function runReplay(
  registry: readonly ModelPreset[],
  file: string,
  json: boolean,
  reporters: readonly Reporter[],
  out: Output,
): number {
  const cx = loadCounterexample(file);
  const preset = registry.find((p) => p.name === cx.preset);
  if (!preset) throw new InputError('SJ102', file, `/preset: unknown preset "${cx.preset}" (presets: ${presetList(registry)})`);
  let bounds: Record<string, number>;
  try {
    bounds = resolveBounds(preset, cx.bounds);
  } catch (e) {
    throw new InputError('SJ102', file, `/bounds: ${(e as Error).message}`);
  }
  if (cx.ablate !== undefined && !preset.ablations.some((a) => a.name === cx.ablate)) {
    throw new InputError('SJ102', file, `/ablate: preset ${preset.name} has no element "${cx.ablate}"`);
  }
  let built = preset.build(bounds, cx.ablate);
  if (cx.part !== undefined) {
    const part = preset.parts?.(bounds, cx.ablate).find((p) => p.label === cx.part);
    if (!part) throw new InputError('SJ102', file, `/part: preset ${preset.name} has no part "${cx.part}"`);
    built = part.model;
  }
  return built.use(<S, A>(model: Model<S, A>): number => {
    const fromJson = model.actionFromJson?.bind(model);
    const toJson = model.actionToJson?.bind(model);
    if (!fromJson || !toJson) throw new InputError('SJ108', file, `model ${model.name} cannot read actions from JSON`);
    const actions = cx.actions.map((j, i) => {
      try {
        return fromJson(j);
      } catch (e) {
        throw new InputError('SJ102', file, `/actions/${i}: ${(e as Error).message}`);
      }
    });
    const replayed = replayPath(model, cx.initialState, actions);
    if (!replayed.ok) {
      if (replayed.failedStep < 0) throw new InputError('SJ108', file, `/initialState: ${replayed.reason}`);
      throw new InputError(
        'SJ108',
        file,
        `step ${replayed.failedStep + 1}: ${replayed.reason} in the state reached (the model or its bounds differ from the run that wrote the file)`,
      );
    }
    const stateJson = (st: S): unknown => (model.stateToJson ? model.stateToJson(st) : model.encode(st));
    const start = replayed.steps[0]?.before ?? replayed.final;
    const steps = replayed.steps.map((step, i) => ({
      step: i + 1,
      action: toJson(step.action),
      description: model.describeAction(step.action),
      changes: jsonDiff(stateJson(step.before), stateJson(step.after)),
    }));
    const state = replayed.final;
    const evaluation = evaluateProperty(model, cx.property.kind, cx.property.name, state, { maxSeconds: 60 });
    if (!evaluation.found)
      throw new InputError('SJ108', file, `/property: model ${model.name} has no ${cx.property.kind} "${cx.property.name}"`);
    const code = evaluation.verdict === 'violated' ? EXIT.fail : evaluation.verdict === 'holds' ? EXIT.pass : EXIT.unknown;
    const name = `${file}: ${cx.property.kind} ${cx.property.name}`;
    const result: CiResult = {
      title: `streamjoin check --replay ${file}`,
      verdict: verdictOf(code),
      suites: [
        {
          name: 'check --replay',
          properties: { preset: preset.name },
          cases: [
            code === EXIT.pass
              ? { name, classname: 'check.replay', status: 'pass' }
              : code === EXIT.fail
                ? {
                    name,
                    classname: 'check.replay',
                    status: 'fail',
                    message: `${cx.property.name} VIOLATED at the end: ${evaluation.explanation ?? ''}`,
                    file,
                  }
                : { name, classname: 'check.replay', status: 'unknown', message: evaluation.explanation ?? 'undecided', file },
          ],
        },
      ],
    };
    emitReports([result], reporters, out, json);
    if (json) {
      out.stdout(
        `${JSON.stringify({
          ...reportHeader(CHECK_REPLAY_REPORT_FORMAT),
          file,
          preset: preset.name,
          bounds,
          property: cx.property,
          initial: stateJson(start),
          steps,
          final: stateJson(state),
          verdict: evaluation.verdict,
          explanation: evaluation.explanation ?? null,
          exitCode: code,
        })}\n`,
      );
      return code;
    }
    if (reporterOnStdout(reporters)) return code;
    const lines = [
      `replaying ${file}: ${cx.property.kind} ${cx.property.name} of preset ${preset.name}${cx.ablate ? ` without ${cx.ablate}` : ''} (${boundsText(bounds)})`,
    ];
    lines.push(`initial state ${cx.initialState}: ${JSON.stringify(stateJson(start))}`);
    for (const st of steps) {
      lines.push(`step ${st.step}: ${st.description}`);
      for (const c of st.changes) lines.push(`    ${c}`);
      if (st.changes.length === 0) lines.push('    (no change)');
    }
    lines.push(
      evaluation.verdict === 'violated'
        ? `${cx.property.name} VIOLATED at the end: ${evaluation.explanation ?? ''}`
        : evaluation.verdict === 'holds'
          ? `${cx.property.name} holds at the end${evaluation.explanation ? ` (${evaluation.explanation})` : ''}: the counterexample no longer reproduces`
          : `${cx.property.name} undecided: ${evaluation.explanation ?? ''}`,
    );
    out.stdout(`${lines.join('\n')}\n`);
    return code;
  });
}
