// The sidebar panel: the active notebook's findings, filters, fixes, the probe and rule docs.
// It shows what the store holds and calls back the controller for every action.
import { Widget } from '@lumino/widgets';

import {
  ALL_SEVERITIES,
  countBySeverity,
  displayMessage,
  filterFindings,
  locationLabel,
  runtimeBadge,
  toggleSeverity,
  type SeverityFilter
} from './filter';
import type { Finding, RuleDoc, Severity } from './protocol';
import type { FindingsStore } from './store';

export interface SidebarActions {
  jump(finding: Finding): void;
  applyFix(finding: Finding): void;
  fixAllSafe(): void;
  probe(): void;
  check(): void;
  rule(code: string): Promise<RuleDoc>;
  renderMarkdown(host: HTMLElement, markdown: string): Promise<void>;
}

const SEVERITY_LABEL: Record<Severity, string> = { error: 'Errors', warning: 'Warnings', information: 'Info' };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label: string, className: string, onClick: () => void, title?: string): HTMLButtonElement {
  const node = element('button', `jp-Button tapelsp-button ${className}`, label);
  node.type = 'button';
  if (title) node.title = title;
  node.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return node;
}

export class TapelspSidebar extends Widget {
  private store: FindingsStore | null = null;
  private notebookName = '';
  private unsubscribe: (() => void) | null = null;
  private severities: SeverityFilter = ALL_SEVERITIES;
  private openDocs = new Map<string, HTMLElement>();
  /** Findings shown in full (the others' messages are cut after a few lines). */
  private expanded = new Set<string>();
  private notice = '';

  constructor(private readonly actions: SidebarActions) {
    super();
    this.id = 'tapelsp-sidebar';
    this.addClass('tapelsp-sidebar');
    this.title.caption = 'tapelsp: TensorFlow findings';
    this.render();
  }

  /** Show the findings of another notebook (null: no notebook is active). */
  setNotebook(name: string, store: FindingsStore | null): void {
    if (store === this.store) return;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.store = store;
    this.notebookName = name;
    this.notice = '';
    this.openDocs.clear();
    this.expanded.clear();
    if (store) this.unsubscribe = store.subscribe(() => this.render());
    this.render();
  }

  /** A one-line message under the toolbar (a fix that could not be applied, ...). */
  setNotice(text: string): void {
    this.notice = text;
    this.render();
  }

  dispose(): void {
    this.unsubscribe?.();
    super.dispose();
  }

  private render(): void {
    const root = this.node;
    root.replaceChildren();
    const header = element('div', 'tapelsp-header');
    header.append(element('div', 'tapelsp-title', 'tapelsp'));
    const store = this.store;
    if (!store) {
      root.append(header, element('div', 'tapelsp-empty', 'Open a notebook to check it.'));
      return;
    }
    header.append(element('div', 'tapelsp-notebook', this.notebookName));
    root.append(header);

    const all = store.findings;
    const safe = all.filter((f) => f.fix?.safe).length;
    const toolbar = element('div', 'tapelsp-toolbar');
    toolbar.append(
      button('Re-check', 'tapelsp-recheck', () => this.actions.check(), 'Check the notebook again now'),
      button(`Fix all safe (${safe})`, 'tapelsp-fix-all', () => this.actions.fixAllSafe(), 'Apply every safe fix'),
      button(
        'Probe kernel',
        'tapelsp-probe',
        () => this.actions.probe(),
        "Ask the notebook's running kernel (with %load_ext tapelsp.probe) what TensorFlow did, and confirm findings"
      )
    );
    const fixAll = toolbar.querySelector<HTMLButtonElement>('.tapelsp-fix-all');
    if (fixAll) fixAll.disabled = safe === 0;
    root.append(toolbar);

    const counts = countBySeverity(all);
    const filters = element('div', 'tapelsp-filters');
    filters.setAttribute('role', 'group');
    filters.setAttribute('aria-label', 'Show severities');
    for (const severity of ['error', 'warning', 'information'] as Severity[]) {
      const on = this.severities.has(severity);
      const toggle = button(
        `${SEVERITY_LABEL[severity]} ${counts[severity]}`,
        `tapelsp-filter tapelsp-filter-${severity}${on ? ' tapelsp-on' : ''}`,
        () => {
          this.severities = toggleSeverity(this.severities, severity);
          this.render();
        },
        on ? `Hide ${SEVERITY_LABEL[severity].toLowerCase()}` : `Show ${SEVERITY_LABEL[severity].toLowerCase()}`
      );
      toggle.setAttribute('aria-pressed', String(on));
      toggle.dataset.severity = severity;
      filters.append(toggle);
    }
    root.append(filters);

    const status = element('div', `tapelsp-status tapelsp-status-${store.status}`);
    status.textContent =
      store.status === 'checking'
        ? 'Checking…'
        : store.status === 'probing'
          ? 'Asking the kernel…'
          : store.status === 'error'
            ? store.error
            : `${all.length} finding${all.length === 1 ? '' : 's'}${store.pending ? ' (re-check pending)' : ''}`;
    root.append(status);
    if (this.notice) root.append(element('div', 'tapelsp-notice', this.notice));

    const probe = store.probe;
    if (probe) {
      // What the last probe said (findings confirmed since then keep their badge until their
      // cell changes).
      const box = element('div', 'tapelsp-runtime');
      const tf = probe.runtime?.versions.tensorflow;
      const composed = [
        tf ? `TensorFlow ${tf}` : 'TensorFlow version unknown',
        probe.runtime?.eager === false ? 'graph mode' : probe.runtime?.eager ? 'eager' : '',
        `${probe.confirmed} confirmed`
      ].filter(Boolean).join(', ');
      box.append(element('div', 'tapelsp-runtime-title', 'Last probe of the kernel'));
      box.append(element('div', 'tapelsp-runtime-summary', probe.message || composed));
      root.append(box);
    }

    const shown = filterFindings(all, this.severities);
    const list = element('ul', 'tapelsp-findings');
    for (const finding of shown) list.append(this.renderFinding(finding));
    root.append(list);
    if (all.length > 0 && shown.length === 0) {
      root.append(element('div', 'tapelsp-empty', 'Every finding is hidden by the severity filter.'));
    }
  }

  private renderFinding(finding: Finding): HTMLElement {
    const key = `${finding.code}@${finding.cell_id}:${finding.range.start.line}:${finding.range.start.character}`;
    const item = element('li', `tapelsp-finding tapelsp-severity-${finding.severity}`);
    if (this.expanded.has(key)) item.classList.add('tapelsp-expanded');
    item.dataset.code = finding.code;
    item.dataset.severity = finding.severity;
    item.tabIndex = 0;
    item.title = 'Go to the cell and line (and show the whole message)';
    const open = () => {
      this.expanded.add(key);
      item.classList.add('tapelsp-expanded');
      this.actions.jump(finding);
    };
    item.addEventListener('click', open);
    item.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target === item) open();
    });

    const head = element('div', 'tapelsp-finding-head');
    head.append(
      element('span', `tapelsp-severity tapelsp-severity-icon-${finding.severity}`, finding.severity),
      element('span', 'tapelsp-code', finding.code),
      element('span', 'tapelsp-location', locationLabel(finding))
    );
    const badge = runtimeBadge(finding);
    if (badge && finding.runtime) {
      const node = element('span', `tapelsp-badge tapelsp-badge-${finding.runtime.status}`, badge);
      node.title = finding.runtime.evidence;
      head.append(node);
    }
    item.append(head, element('div', 'tapelsp-message', displayMessage(finding)));
    if (finding.runtime?.evidence) {
      item.append(element('div', 'tapelsp-evidence', `Runtime: ${finding.runtime.evidence}`));
    }

    const actions = element('div', 'tapelsp-actions');
    if (finding.fix) {
      const fix = finding.fix;
      actions.append(
        button(
          fix.safe ? 'Apply fix' : 'Apply fix (unsafe)',
          `tapelsp-apply${fix.safe ? '' : ' tapelsp-unsafe'}`,
          () => this.actions.applyFix(finding),
          fix.safe ? fix.title : `${fix.title}. It may change what the code does: check it.`
        )
      );
    }
    const doc = this.openDocs.get(key);
    actions.append(
      button(doc ? 'Hide rule' : 'Rule docs', 'tapelsp-docs', () => this.toggleDoc(key, finding.code), `What ${finding.code} means`)
    );
    item.append(actions);
    if (doc) item.append(doc);
    return item;
  }

  private toggleDoc(key: string, code: string): void {
    if (this.openDocs.has(key)) {
      this.openDocs.delete(key);
      this.render();
      return;
    }
    const host = element('div', 'tapelsp-doc', `Loading ${code}…`);
    host.addEventListener('click', (event) => event.stopPropagation());
    this.openDocs.set(key, host);
    this.render();
    this.actions
      .rule(code)
      .then(async (doc) => {
        host.replaceChildren();
        await this.actions.renderMarkdown(host, doc.markdown);
      })
      .catch((error: unknown) => {
        host.textContent = `No documentation for ${code}: ${error instanceof Error ? error.message : String(error)}`;
      });
  }
}
