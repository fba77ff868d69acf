// Offsets from the parsers become the 1-based line/column pairs an editor shows.

export interface Position {
  readonly line: number;
  readonly column: number;
}

export const FILE_START: Position = { line: 1, column: 1 };

export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10 /* \n */) {
        this.lineStarts.push(i + 1);
      } else if (code === 13 /* \r */ && text.charCodeAt(i + 1) !== 10) {
        this.lineStarts.push(i + 1);
      }
    }
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(Number.isFinite(offset) ? Math.floor(offset) : 0, this.text.length));
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid] <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: clamped - this.lineStarts[low] + 1 };
  }
}
