// Just enough of the `vscode` API for the bundled extension's activate() to run in plain Node, with the status bar
// text recorded (time-stamped) so the bench can see the first status a user would see. Unknown members of the
// namespaces resolve to no-op functions returning a disposable, so an API the extension starts using later degrades
// to "does nothing" instead of crashing the bench.
'use strict';
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const statusBarHistory = [];

class Disposable {
  constructor(callOnDispose) {
    this._callOnDispose = callOnDispose;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((item) => item && item.dispose && item.dispose()));
  }
  dispose() {
    if (this._callOnDispose) this._callOnDispose();
    this._callOnDispose = undefined;
  }
}
const noopDisposable = () => new Disposable(() => undefined);

class EventEmitter {
  constructor() {
    this._listeners = new Set();
    this.event = (listener, thisArg) => {
      const bound = thisArg ? listener.bind(thisArg) : listener;
      this._listeners.add(bound);
      return new Disposable(() => this._listeners.delete(bound));
    };
  }
  fire(value) {
    for (const listener of [...this._listeners]) listener(value);
  }
  dispose() {
    this._listeners.clear();
  }
}
const noEvent = () => noopDisposable();

class Uri {
  constructor(scheme, fsPath) {
    this.scheme = scheme;
    this.fsPath = fsPath;
    this.path = fsPath;
  }
  static file(fsPath) {
    return new Uri('file', path.resolve(fsPath));
  }
  static parse(text) {
    return new Uri(text.split(':')[0], text.replace(/^file:\/\//, ''));
  }
  static joinPath(base, ...segments) {
    return new Uri(base.scheme, path.join(base.fsPath, ...segments));
  }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.path ?? this.fsPath);
  }
  toString() {
    return `${this.scheme}://${this.fsPath}`;
  }
}

class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
class ThemeIcon {
  constructor(id, color) {
    this.id = id;
    this.color = color;
  }
}
ThemeIcon.File = new ThemeIcon('file');
ThemeIcon.Folder = new ThemeIcon('folder');
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
  }
  appendMarkdown(text) {
    this.value += text;
    return this;
  }
  appendText(text) {
    this.value += text;
    return this;
  }
  appendCodeblock(code) {
    this.value += `\n\`\`\`\n${code}\n\`\`\`\n`;
    return this;
  }
}
class TreeItem {
  constructor(label, collapsibleState) {
    this.label = label;
    this.collapsibleState = collapsibleState;
  }
}
class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(start, end) {
    this.start = start;
    this.end = end;
  }
}
class CodeLens {
  constructor(range, command) {
    this.range = range;
    this.command = command;
    this.isResolved = command !== undefined;
  }
}
class Hover {
  constructor(contents, range) {
    this.contents = Array.isArray(contents) ? contents : [contents];
    this.range = range;
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}
class RelativePattern {
  constructor(base, pattern) {
    this.baseUri = base instanceof Uri ? base : base.uri;
    this.pattern = pattern;
  }
}

function statusBarItem(id) {
  let text = '';
  return {
    id,
    name: '',
    command: undefined,
    tooltip: undefined,
    backgroundColor: undefined,
    accessibilityInformation: undefined,
    get text() {
      return text;
    },
    set text(value) {
      text = value;
      statusBarHistory.push({ t: performance.now(), text: value });
    },
    show() {},
    hide() {},
    dispose() {},
  };
}

function outputChannel(name) {
  const noop = () => undefined;
  return {
    name,
    logLevel: 2,
    onDidChangeLogLevel: noEvent,
    append: noop,
    appendLine: noop,
    replace: noop,
    clear: noop,
    show: noop,
    hide: noop,
    dispose: noop,
    trace: noop,
    debug: noop,
    info: noop,
    warn: noop,
    error: noop,
  };
}

function diagnosticCollection() {
  const entries = new Map();
  return {
    set(uriOrEntries, list) {
      if (Array.isArray(uriOrEntries)) for (const [uri, items] of uriOrEntries) entries.set(uri.toString(), [uri, items]);
      else entries.set(uriOrEntries.toString(), [uriOrEntries, list]);
    },
    clear: () => entries.clear(),
    delete: (uri) => entries.delete(uri.toString()),
    forEach: (callback) => entries.forEach(([uri, items]) => callback(uri, items)),
    dispose: () => entries.clear(),
  };
}

/** Namespace objects: known members as given, anything else a no-op returning a disposable. */
function lenient(name, known) {
  return new Proxy(known, {
    get(target, property) {
      if (property in target || typeof property === 'symbol') return target[property];
      return () => noopDisposable();
    },
  });
}

function createFakeVscode({ workspaceFolder, settings = {}, answer }) {
  const folders = workspaceFolder ? [{ uri: Uri.file(workspaceFolder), name: path.basename(workspaceFolder), index: 0 }] : undefined;
  const configuration = (section) => ({
    get: (key, fallback) =>
      Object.prototype.hasOwnProperty.call(settings, `${section}.${key}`) ? settings[`${section}.${key}`] : fallback,
    has: (key) => Object.prototype.hasOwnProperty.call(settings, `${section}.${key}`),
    inspect: () => undefined,
    update: () => Promise.resolve(),
  });
  return {
    version: '1.95.0',
    Disposable,
    EventEmitter,
    Uri,
    ThemeColor,
    ThemeIcon,
    MarkdownString,
    TreeItem,
    Position,
    Range,
    Diagnostic,
    RelativePattern,
    CodeLens,
    Hover,
    StatusBarAlignment: { Left: 1, Right: 2 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    QuickPickItemKind: { Separator: -1, Default: 0 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    window: lenient('window', {
      createOutputChannel: outputChannel,
      createStatusBarItem: (id) => statusBarItem(typeof id === 'string' ? id : 'anonymous'),
      createTreeView: () => ({
        message: undefined,
        badge: undefined,
        title: undefined,
        visible: true,
        onDidChangeVisibility: noEvent,
        onDidChangeSelection: noEvent,
        onDidExpandElement: noEvent,
        onDidCollapseElement: noEvent,
        reveal: () => Promise.resolve(),
        dispose() {},
      }),
      registerTreeDataProvider: noopDisposable,
      // With answer set, a notification offering that button is answered with it at once (a user clicking Allow).
      showInformationMessage: (_message, ...items) => Promise.resolve(answer !== undefined && items.includes(answer) ? answer : undefined),
      showWarningMessage: () => Promise.resolve(undefined),
      showErrorMessage: () => Promise.resolve(undefined),
      setStatusBarMessage: noopDisposable,
      withProgress: (_options, task) => task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: noEvent }),
      onDidChangeActiveTextEditor: noEvent,
    }),
    workspace: lenient('workspace', {
      workspaceFolders: folders,
      isTrusted: true,
      getConfiguration: configuration,
      getWorkspaceFolder: (uri) =>
        folders?.find((folder) => uri.fsPath === folder.uri.fsPath || uri.fsPath.startsWith(folder.uri.fsPath + path.sep)),
      createFileSystemWatcher: () => ({ onDidCreate: noEvent, onDidChange: noEvent, onDidDelete: noEvent, dispose() {} }),
      onDidChangeConfiguration: noEvent,
      onDidChangeWorkspaceFolders: noEvent,
      onDidGrantWorkspaceTrust: noEvent,
    }),
    commands: lenient('commands', {
      registerCommand: noopDisposable,
      executeCommand: () => Promise.resolve(undefined),
    }),
    languages: lenient('languages', { createDiagnosticCollection: diagnosticCollection }),
    env: lenient('env', {
      appName: 'Fake Code',
      uiKind: 1,
      remoteName: undefined,
      clipboard: { writeText: () => Promise.resolve(), readText: () => Promise.resolve('') },
    }),
    extensions: lenient('extensions', { getExtension: () => undefined, all: [] }),
    l10n: { t: (message) => message },
  };
}

function createContext({ extensionPath, storageDir, packageJSON }) {
  const memento = () => {
    const values = new Map();
    return {
      get: (key, fallback) => (values.has(key) ? values.get(key) : fallback),
      update: (key, value) => {
        values.set(key, value);
        return Promise.resolve();
      },
      keys: () => [...values.keys()],
    };
  };
  const secrets = new Map();
  return {
    subscriptions: [],
    extensionPath,
    extensionUri: Uri.file(extensionPath),
    extension: { id: 'mcp-health.mcp-health', packageJSON, extensionUri: Uri.file(extensionPath), extensionPath },
    globalStorageUri: Uri.file(path.join(storageDir, 'User', 'globalStorage', 'mcp-health.mcp-health')),
    storageUri: Uri.file(path.join(storageDir, 'workspaceStorage')),
    logUri: Uri.file(path.join(storageDir, 'logs')),
    extensionMode: 1,
    globalState: { ...memento(), setKeysForSync() {} },
    workspaceState: memento(),
    secrets: {
      get: (key) => Promise.resolve(secrets.get(key)),
      store: (key, value) => {
        secrets.set(key, value);
        return Promise.resolve();
      },
      delete: (key) => {
        secrets.delete(key);
        return Promise.resolve();
      },
      onDidChange: noEvent,
    },
    asAbsolutePath: (relative) => path.join(extensionPath, relative),
  };
}

module.exports = { createFakeVscode, createContext, statusBarHistory };
