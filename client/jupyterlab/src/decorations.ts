// Underlines in the cell editors (CodeMirror 6 decorations), registered through
// IEditorExtensionRegistry. Each cell editor registers its view with the hub; when a notebook's
// findings change, the hub sends the marks of each of its cells to the views showing them.
import { RangeSetBuilder, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, type DecorationSet } from '@codemirror/view';
import type { CodeEditor } from '@jupyterlab/codeeditor';
import { EditorExtensionRegistry, type IEditorExtensionRegistry } from '@jupyterlab/codemirror';

import { marksFor, type Mark } from './marks';
import type { Finding } from './protocol';

/** What the hub needs to know about the findings of one notebook. */
export interface MarkSource {
  findingsForCell(cellId: string): Finding[];
  checkedSource(cellId: string): string | undefined;
}

const setMarks = StateEffect.define<Mark[]>();

function buildDecorations(marks: readonly Mark[], length: number): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const mark of marks) {
    if (mark.to > length) continue;
    const classes = ['tapelsp-underline', `tapelsp-underline-${mark.severity}`];
    if (mark.confirmed) classes.push('tapelsp-underline-confirmed');
    builder.add(
      mark.from,
      mark.to,
      Decoration.mark({
        class: classes.join(' '),
        attributes: { title: `${mark.code}: ${mark.message}`, 'data-tapelsp-code': mark.code }
      })
    );
  }
  return builder.finish();
}

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, transaction) {
    // Until the next check, the underlines move with the text they cover.
    let next = decorations.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (effect.is(setMarks)) next = buildDecorations(effect.value, transaction.state.doc.length);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field)
});

interface Registration {
  cellId: string;
  notebook: object | null;
}

/** Connects the notebooks' findings to the cell editors that show them. */
export class MarkHub {
  private views = new Map<EditorView, Registration>();
  private sources = new Map<object, MarkSource>();

  /** The findings of the notebook whose shared model is `notebook`. */
  setSource(notebook: object, source: MarkSource): void {
    this.sources.set(notebook, source);
    this.refresh(notebook);
  }

  removeSource(notebook: object): void {
    this.sources.delete(notebook);
    this.refresh(notebook);
  }

  /** Sends fresh marks to every view of `notebook`'s cells. */
  refresh(notebook: object): void {
    for (const [view, registration] of this.views) {
      if (registration.notebook === notebook) this.update(view, registration);
    }
  }

  /** The CodeMirror extension for a cell editor whose model is `model`. */
  extensionFor(model: CodeEditor.IModel): Extension | null {
    const shared = model.sharedModel as { id?: unknown; notebook?: object | null };
    if (typeof shared.id !== 'string' || !shared.notebook) return null; // not a notebook cell
    const registration: Registration = { cellId: shared.id, notebook: shared.notebook };
    const hub = this;
    const plugin = ViewPlugin.define((view) => {
      hub.views.set(view, registration);
      // A view may not be updated while it is being built.
      queueMicrotask(() => hub.views.has(view) && hub.update(view, registration));
      return { destroy: () => hub.views.delete(view) };
    });
    return [marksField, plugin];
  }

  private update(view: EditorView, registration: Registration): void {
    const source = registration.notebook ? this.sources.get(registration.notebook) : undefined;
    const text = view.state.doc.toString();
    let marks: Mark[] = [];
    if (source) {
      // Findings of another version of the text would land in the wrong place: keep the mapped
      // underlines until the check of this text comes back.
      if (source.checkedSource(registration.cellId) !== text) return;
      marks = marksFor(source.findingsForCell(registration.cellId), text);
    }
    view.dispatch({ effects: setMarks.of(marks) });
  }
}

export function registerDecorations(registry: IEditorExtensionRegistry, hub: MarkHub): void {
  registry.addExtension({
    name: 'tapelsp:findings',
    factory: (options) => {
      const extension = hub.extensionFor(options.model);
      return extension ? EditorExtensionRegistry.createImmutableExtension(extension) : null;
    }
  });
}
