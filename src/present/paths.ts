// How the views name files and workspace folders. Pure (the home folder is a parameter with the real one as default),
// so every front end names a file the same way and the views need not import helpers from each other.

import * as os from 'node:os';
import type { WorkspaceFolderRef } from './treeModel';

/** `~/...` for a file under the home folder, the path unchanged otherwise. */
export function displayPath(file: string, home: string = os.homedir()): string {
  return home && (file === home || file.startsWith(home + '/') || file.startsWith(home + '\\')) ? `~${file.slice(home.length)}` : file;
}

/** The shape of a `vscode.WorkspaceFolder` this layer needs, so it stays free of the editor API. */
export interface WorkspaceFolderLike {
  readonly uri: { readonly scheme: string; readonly fsPath: string };
  readonly name: string;
}

/** Only folders on disk can hold config files: remote and virtual folders are left out. */
export function workspaceFolderRefs(folders: readonly WorkspaceFolderLike[] | undefined): WorkspaceFolderRef[] {
  return (folders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => ({ path: folder.uri.fsPath, name: folder.name }));
}
