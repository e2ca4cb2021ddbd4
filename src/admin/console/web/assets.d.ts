// esbuild bundles the stylesheet that main.tsx imports into app-<hash>.css.
declare module "*.css" {}
