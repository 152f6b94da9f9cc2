// Vite's `?raw` imports (a file's text), which tests use to read source files such as the route table.
declare module "*?raw" {
  const text: string;
  export default text;
}
