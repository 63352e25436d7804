// The view of a counterexample to a user's model (`check --model FILE`):
// its path through the model itself, drawn by the model's rendering hook
// (`Model.rendering`: lanes, and each step's rows and lines) when it has
// one, else generically: one lane with each step's action, and as what
// happened the fields of the state (`stateToJson`) the step changed, before
// and after. Markdown, HTML and ITF are then written from it as for
// streamjoin's own models.
import type { Counterexample } from '../../spec/index.ts';
import { jsonDiff, type Model, type Path, type RenderedRow } from '../../model/index.ts';
import { changedPaths, violationOf, type CounterexampleView, type ViewRow, type ViewStep } from './view.ts';
import { VERSIONS } from '../report/versions.ts';

/** The lane of the generic drawing, for a model without a rendering hook. */
export const GENERIC_LANE = 'model';

/**
 * The view of `cx`, a counterexample to `model` along `path`; `replay` is
 * the command that replays its file (with the `--model` flags that load the
 * model again).
 */
export function userModelView<S, A>(cx: Counterexample, model: Model<S, A>, path: Path<S, A>, replay: string): CounterexampleView {
  const rendering = model.rendering;
  const lanes = [...(rendering?.lanes ?? [GENERIC_LANE])];
  const lane = (name: string): number => {
    // A row on a lane the model did not list gets a lane of its own, at the right: drawn, not lost.
    if (!lanes.includes(name)) lanes.push(name);
    return lanes.indexOf(name);
  };
  const shown = (s: S): unknown => (rendering?.observe ? rendering.observe(s) : model.stateToJson ? model.stateToJson(s) : s);
  const rowOf = (r: RenderedRow): ViewRow =>
    r.to !== undefined
      ? { from: lane(r.lane), to: lane(r.to), text: r.text, kind: r.refused ? 'fenced' : 'message' }
      : { from: lane(r.lane), text: r.text, kind: r.refused ? 'refused' : 'note' };
  const initialState = shown(path.states[0] as S);
  let before = initialState;
  const steps = path.actions.map((action, i): ViewStep => {
    const from = path.states[i] as S;
    const to = path.states[i + 1] as S;
    const state = shown(to);
    const what = model.describeAction(action);
    const drawn = rendering?.step(from, action, to);
    const rows: ViewRow[] = drawn ? drawn.rows.map(rowOf) : [{ from: 0, text: what, kind: 'note' }];
    if (i === path.actions.length - 1) rows.push({ from: 0, text: `✗ ${cx.property.name} is broken here`, kind: 'divergence' });
    const step: ViewStep = {
      number: i + 1,
      action: what,
      actionJson: model.actionToJson ? model.actionToJson(action) : action,
      events: drawn ? [...(drawn.events ?? drawn.rows.map((r) => r.text))] : jsonDiff(before, state),
      rows,
      state,
      changed: changedPaths(before, state),
    };
    before = state;
    return step;
  });
  const bounds = Object.entries(cx.bounds).map(([k, v]) => `${k}=${v}`);
  return {
    kind: 'model',
    name: `${cx.preset}-${cx.property.name}`,
    description: `A counterexample to ${cx.property.name} (${cx.property.kind}) in the model ${cx.model}.`,
    versions: VERSIONS,
    config: [['model', cx.model], ...(bounds.length > 0 ? ([['bounds', bounds.join(' ')]] as [string, string][]) : [])],
    configJson: { model: cx.model, bounds: cx.bounds },
    found: [
      ['model', cx.model],
      ['found by', `streamjoin check --model: a shortest path to a state that breaks ${cx.property.name}`],
      ['replay', replay],
    ],
    nodes: lanes,
    initialState,
    steps,
    violation: violationOf(cx),
    rules: [],
    properties: [],
  };
}
