/** The header's height (console-spec §2 Layout): the multi-tab bar sits under it when it is fixed, and
 * notifications open below it so they never cover the header's actions (language, bell, account). */
export const HEADER_HEIGHT = 64;
