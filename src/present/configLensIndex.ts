// Which lenses a config file shows, kept cheap enough to answer on every render: the servers of each file and their
// places come from discovery (rebuilt only when the set of servers changes), each server's text is built once per
// change of that server, and an unsaved buffer is parsed once per document version. No I/O anywhere.

import type { Position } from '../core/config/lineIndex';
import type { LocateContext } from '../core/config/serverLocations';
import type { ConfigFormat, ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { serverLensModel, type ServerLensModel } from './configLens';

/** The editor's document, as far as lenses need it. */
export interface LensDocument {
  /** Absolute file system path. */
  readonly file: string;
  readonly version: number;
  /** Unsaved edits: discovery's places (from the file on disk) may no longer match the text. */
  readonly isDirty: boolean;
  getText(): string;
}

export interface PlacedLens {
  /** The same object from render to render until the server changes: the adapter may key its own objects on it. */
  readonly model: ServerLensModel;
  /** 1-based, like discovery's positions. */
  readonly line: number;
  readonly column: number;
}

export type LocateServers = (text: string, file: string, format: ConfigFormat, context: LocateContext) => ReadonlyMap<string, Position>;

export interface ConfigLensIndexDeps {
  readonly registry: Pick<MonitorRegistry, 'list' | 'get' | 'onEvent'>;
  /** Wall clock, for the retry countdown in the state text. */
  readonly now: () => number;
  /** The format's own parser (core/config/serverLocations), run only on unsaved buffers. */
  readonly locate: LocateServers;
  /** What parsing a buffer needs besides its text: workspace folders, home, platform, env. */
  readonly parseContext: () => Omit<LocateContext, 'scope' | 'folder'>;
  /** Told whenever what some file shows may have changed; the adapter coalesces it. */
  readonly onDidChange: () => void;
  /** Case-insensitive file systems (win32, darwin) compare paths lower-cased. */
  readonly platform: NodeJS.Platform;
}

interface FileEntry {
  readonly id: string;
  readonly file: string;
  readonly position: Position;
  readonly format: ConfigFormat;
  readonly scope: LocateContext['scope'];
  readonly folder?: string;
}

export class ConfigLensIndex {
  private files: Map<string, FileEntry[]> | undefined;
  private readonly models = new Map<string, ServerLensModel>();
  private readonly buffers = new Map<string, { version: number; places: ReadonlyMap<string, Position> }>();
  private readonly unsubscribe: () => void;
  private changes = 0;

  constructor(private readonly deps: ConfigLensIndexDeps) {
    this.unsubscribe = deps.registry.onEvent((event) => {
      if (event.type === 'stderr' || event.type === 'wake') return;
      this.changes++;
      if (event.type === 'servers') {
        this.files = undefined;
        this.models.clear();
      } else {
        this.models.delete(event.id);
      }
      deps.onDidChange();
    });
  }

  /** Counts the changes the lenses follow: equal counts and an equal document version mean an equal result. */
  get generation(): number {
    return this.changes;
  }

  /** Whether any discovered server is declared in this file: a cheap test before anything else. */
  hasServers(file: string): boolean {
    return this.byFile().has(this.key(file));
  }

  /** The lenses of one document, ordered by line; [] for a file no server is declared in. */
  lensesFor(document: LensDocument): PlacedLens[] {
    const entries = this.byFile().get(this.key(document.file));
    if (!entries) return [];
    const places = document.isDirty ? this.bufferPlaces(document, entries[0]) : undefined;
    if (!document.isDirty) this.buffers.delete(this.key(document.file));
    const lenses: PlacedLens[] = [];
    for (const entry of entries) {
      const position = places ? places.get(entry.id) : entry.position;
      const model = position ? this.model(entry.id) : undefined;
      if (position && model) lenses.push({ model, line: position.line, column: position.column });
    }
    return places ? lenses.sort((a, b) => a.line - b.line) : lenses;
  }

  /** The lens on a 1-based line, if a server is declared there. */
  lensAt(document: LensDocument, line: number): PlacedLens | undefined {
    return this.lensesFor(document).find((lens) => lens.line === line);
  }

  /** Fresh from the registry (the hover shows details such as stderr that change without a state change). */
  status(id: string): ServerStatus | undefined {
    return this.deps.registry.get(id);
  }

  /** Forgets a closed document's parsed buffer. */
  forget(file: string): void {
    this.buffers.delete(this.key(file));
  }

  dispose(): void {
    this.unsubscribe();
    this.files = undefined;
    this.models.clear();
    this.buffers.clear();
  }

  private byFile(): Map<string, FileEntry[]> {
    if (this.files) return this.files;
    const files = new Map<string, FileEntry[]>();
    for (const status of this.deps.registry.list()) {
      const { id, source } = status.config;
      const key = this.key(source.file);
      let entries = files.get(key);
      if (!entries) files.set(key, (entries = []));
      entries.push({
        id,
        file: source.file,
        position: { line: source.line, column: source.column },
        format: source.format,
        scope: source.scope,
        ...(source.folder !== undefined ? { folder: source.folder } : {}),
      });
      // Statuses from this listing seed the text cache: the first render after a re-discovery builds nothing twice.
      if (!this.models.has(id)) this.models.set(id, serverLensModel(status, this.deps.now()));
    }
    for (const entries of files.values())
      entries.sort((a, b) => a.position.line - b.position.line || a.position.column - b.position.column);
    this.files = files;
    return files;
  }

  private model(id: string): ServerLensModel | undefined {
    let model = this.models.get(id);
    if (!model) {
      const status = this.deps.registry.get(id);
      if (!status) return undefined;
      model = serverLensModel(status, this.deps.now());
      this.models.set(id, model);
    }
    return model;
  }

  private bufferPlaces(document: LensDocument, sample: FileEntry): ReadonlyMap<string, Position> {
    const key = this.key(document.file);
    const cached = this.buffers.get(key);
    if (cached && cached.version === document.version) return cached.places;
    // The discovered path, not the document's: ids are `${file}#${name}` exactly as discovery wrote them.
    const places = this.deps.locate(document.getText(), sample.file, sample.format, {
      ...this.deps.parseContext(),
      scope: sample.scope,
      ...(sample.folder !== undefined ? { folder: sample.folder } : {}),
    });
    this.buffers.set(key, { version: document.version, places });
    return places;
  }

  private key(file: string): string {
    return this.deps.platform === 'win32' || this.deps.platform === 'darwin' ? file.toLowerCase() : file;
  }
}
