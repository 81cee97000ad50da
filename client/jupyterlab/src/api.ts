// The REST client of the tapelsp server extension (see /tapelsp/* in the contract).
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import {
  errorMessage,
  parseCheckResult,
  parseProbeResult,
  parseRuleDoc,
  type CellSource,
  type CheckResult,
  type ProbeResult,
  type RuleDoc
} from './protocol';

/** An error answer of the server, with its message (and the HTTP status). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message);
  }
}

export class TapelspApi {
  constructor(private readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings()) {}

  async check(path: string | null, cells: CellSource[]): Promise<CheckResult> {
    return parseCheckResult(await this.request('check', { method: 'POST', body: JSON.stringify({ path, cells }) }));
  }

  async probe(kernelId: string, path: string | null, cells: CellSource[]): Promise<ProbeResult> {
    const body = JSON.stringify({ kernel_id: kernelId, path, cells });
    return parseProbeResult(await this.request('probe', { method: 'POST', body }));
  }

  async rule(code: string): Promise<RuleDoc> {
    return parseRuleDoc(await this.request(`rules/${encodeURIComponent(code)}`, { method: 'GET' }));
  }

  private async request(endpoint: string, init: RequestInit): Promise<unknown> {
    const url = URLExt.join(this.settings.baseUrl, 'tapelsp', endpoint);
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(url, init, this.settings);
    } catch (error) {
      throw new ApiError(`cannot reach the Jupyter server: ${error instanceof Error ? error.message : String(error)}`, 0);
    }
    const text = await response.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const fallback =
        response.status === 404 && endpoint === 'check'
          ? 'the tapelsp server extension is not enabled (pip install tapelsp-jupyterlab, then restart JupyterLab)'
          : `the tapelsp server answered ${response.status} ${response.statusText}`;
      throw new ApiError(errorMessage(data, fallback), response.status);
    }
    if (data === null) throw new ApiError('the tapelsp server answered with something that is not JSON', response.status);
    return data;
  }
}
