// Keeps the last few kilobytes a child wrote to stderr, so an exit can be explained without unbounded memory.

export class StderrTail {
  private text = '';

  constructor(private readonly capacity: number) {}

  append(chunk: string): void {
    this.text += chunk;
    // Trimming only past twice the capacity keeps appends amortised O(1) for chatty servers.
    if (this.text.length > this.capacity * 2) this.text = this.text.slice(-this.capacity);
  }

  toString(): string {
    return this.text.length > this.capacity ? this.text.slice(-this.capacity) : this.text;
  }
}
