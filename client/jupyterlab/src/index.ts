// The JupyterLab plugin: one findings store per open notebook, the sidebar for the active one,
// underlines in the cell editors, and commands (palette entries) for check, fix all and probe.
import { ILabShell, type JupyterFrontEnd, type JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { LabIcon } from '@jupyterlab/ui-components';

import { TapelspApi } from './api';
import { MarkHub, registerDecorations } from './decorations';
import { safeFixEdits } from './edits';
import { applyNotebookEdits, cellSources, kernelId, revealPosition } from './notebook';
import type { Finding } from './protocol';
import { TapelspSidebar } from './sidebar';
import { FindingsStore } from './store';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">' +
  '<path class="jp-icon3" fill="#616161" d="M2 3h12v2H9v9H7V5H2z"/>' +
  '<circle class="jp-icon-warn0" fill="#f57c00" cx="13" cy="12" r="2.2"/></svg>';

const icon = new LabIcon({ name: 'tapelsp:icon', svgstr: ICON_SVG });

export const CommandIds = {
  check: 'tapelsp:check',
  fixAllSafe: 'tapelsp:fix-all-safe',
  probe: 'tapelsp:probe-kernel',
  show: 'tapelsp:show-findings'
} as const;

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'tapelsp-jupyterlab:plugin',
  description: 'tapelsp findings for notebooks: sidebar, underlines, fixes and runtime confirmation.',
  autoStart: true,
  requires: [INotebookTracker, IEditorExtensionRegistry],
  optional: [ILabShell, ICommandPalette, IRenderMimeRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    editorExtensions: IEditorExtensionRegistry,
    labShell: ILabShell | null,
    palette: ICommandPalette | null,
    rendermime: IRenderMimeRegistry | null
  ) => {
    const api = new TapelspApi();
    const hub = new MarkHub();
    registerDecorations(editorExtensions, hub);
    const stores = new Map<NotebookPanel, FindingsStore>();

    const storeFor = (panel: NotebookPanel): FindingsStore => {
      let store = stores.get(panel);
      if (store) return store;
      const path = () => panel.context.path || null;
      const created = new FindingsStore({
        cells: () => cellSources(panel),
        check: (cells) => api.check(path(), cells),
        probe: (cells) => {
          const kernel = kernelId(panel);
          if (!kernel) return Promise.reject(new Error('The notebook has no running kernel: start it and run the cells first.'));
          return api.probe(kernel, path(), cells);
        }
      });
      store = created;
      stores.set(panel, created);
      const connect = () => {
        const model = panel.content.model;
        if (!model) return;
        hub.setSource(model.sharedModel, created);
        created.subscribe(() => hub.refresh(model.sharedModel));
        model.contentChanged.connect(() => created.contentChanged());
        void created.checkNow();
      };
      void panel.context.ready.then(connect);
      panel.disposed.connect(() => {
        const model = panel.content.model;
        if (model) hub.removeSource(model.sharedModel);
        created.dispose();
        stores.delete(panel);
      });
      return created;
    };

    const current = (): { panel: NotebookPanel; store: FindingsStore } | null => {
      const panel = tracker.currentWidget;
      return panel ? { panel, store: storeFor(panel) } : null;
    };

    const applyEdits = (finding: Finding | null, all: boolean): void => {
      const active = current();
      if (!active) return;
      const { panel, store } = active;
      const edits = all ? safeFixEdits(store.findings).edits : (finding?.fix?.edits ?? []);
      if (edits.length === 0) return;
      const outcome = applyNotebookEdits(panel, edits, (id) => store.checkedSource(id));
      if (!outcome.ok) {
        sidebar.setNotice(`Not applied: ${outcome.reason}. Checking again; try once more.`);
        void store.checkNow();
        return;
      }
      sidebar.setNotice('');
      // Focus the edited cell so that Ctrl+Z there takes the fix back.
      const first = edits[0];
      void revealPosition(panel, first.cell_id, first.range.start);
      void store.checkNow();
    };

    const sidebar = new TapelspSidebar({
      jump: (finding) => {
        const active = current();
        if (active) void revealPosition(active.panel, finding.cell_id, finding.range.start);
      },
      applyFix: (finding) => applyEdits(finding, false),
      fixAllSafe: () => applyEdits(null, true),
      probe: () => void current()?.store.probeNow(),
      check: () => void current()?.store.checkNow(),
      rule: (code) => api.rule(code),
      renderMarkdown: async (host, markdown) => {
        if (!rendermime) {
          const pre = document.createElement('pre');
          pre.textContent = markdown;
          host.append(pre);
          return;
        }
        const renderer = rendermime.createRenderer('text/markdown');
        await renderer.renderModel(rendermime.createModel({ data: { 'text/markdown': markdown } }));
        host.append(renderer.node);
      }
    });
    sidebar.title.icon = icon;
    app.shell.add(sidebar, 'right', { rank: 600 });

    const follow = () => {
      const panel = tracker.currentWidget;
      sidebar.setNotebook(panel ? panel.context.path : '', panel ? storeFor(panel) : null);
    };
    tracker.currentChanged.connect(follow);
    tracker.widgetAdded.connect((_, panel) => void storeFor(panel));
    follow();

    const hasNotebook = () => tracker.currentWidget !== null;
    app.commands.addCommand(CommandIds.check, {
      label: 'tapelsp: Check Notebook',
      isEnabled: hasNotebook,
      execute: () => current()?.store.checkNow()
    });
    app.commands.addCommand(CommandIds.fixAllSafe, {
      label: 'tapelsp: Fix All Safe Findings',
      isEnabled: hasNotebook,
      execute: () => applyEdits(null, true)
    });
    app.commands.addCommand(CommandIds.probe, {
      label: 'tapelsp: Probe Kernel (Confirm Findings at Runtime)',
      isEnabled: hasNotebook,
      execute: () => current()?.store.probeNow()
    });
    app.commands.addCommand(CommandIds.show, {
      label: 'tapelsp: Show Findings',
      execute: () => {
        if (labShell) labShell.activateById(sidebar.id);
        else app.shell.activateById(sidebar.id);
      }
    });
    if (palette) {
      for (const command of Object.values(CommandIds)) palette.addItem({ command, category: 'tapelsp' });
    }
  }
};

export default plugin;
