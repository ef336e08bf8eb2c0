// The `[name] ` prefix in front of each child's output line: padded so the
// columns line up, coloured only when a terminal is watching.
const PALETTE = [36, 33, 35, 32, 34, 91, 96];

export function lineLabel(name, { width = name.length, colour = false, index = 0 } = {}) {
  const text = `[${name}]`.padEnd(width + 2);
  return colour ? `\u001b[${PALETTE[index % PALETTE.length]}m${text}\u001b[0m ` : `${text} `;
}
