// One renderer per game, by slug.
import theGame from "./the-game.js";
import ten from "./ten.js";
import sequenceStacks from "./sequence-stacks.js";
import split from "./split.js";

export const RENDERERS = { "the-game": theGame, ten, "sequence-stacks": sequenceStacks, split };

export function rendererFor(slug) {
  return RENDERERS[slug];
}

export const GAME_TITLES = Object.fromEntries(Object.entries(RENDERERS).map(([slug, r]) => [slug, r.title]));
