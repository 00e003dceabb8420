/** Files imported as text (`?raw`, a Vite feature the test pool supports): docs and config the tests check. */
declare module "*?raw" {
  const content: string;
  export default content;
}
