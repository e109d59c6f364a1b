/**
 * A pure function of a string remembered for the strings asked lately: the same queries come
 * back every 3 s, and validating one again (zod, URLSearchParams) was a real share of a poll.
 * At most `limit` answers are kept; past it the memo starts over, so a flood of distinct
 * strings costs what it did without one. Answers are shared: callers must not change them.
 */
export function memoByText<T>(limit: number, compute: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    if (answers.has(text)) return answers.get(text)!;
    const answer = compute(text);
    if (answers.size >= limit) answers.clear();
    answers.set(text, answer);
    return answer;
  };
}
