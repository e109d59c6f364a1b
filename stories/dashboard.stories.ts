import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import '../src/index.ts';
import { storySrc } from './support/endpoint.ts';
import { darkPage } from './support/render.ts';

interface DashboardArgs {
  theme: 'auto' | 'light' | 'dark';
}

/**
 * Every element on one page, as an editor's dashboard: they share the page's one poll hub, so
 * widgets on the same address share one request per tick (the five on quickstats make one), and
 * all of them update in the same instant.
 */
const meta: Meta<DashboardArgs> = {
  title: 'Dashboard',
  args: { theme: 'auto' },
  argTypes: { theme: { control: 'inline-radio', options: ['auto', 'light', 'dark'] } },
  parameters: { layout: 'fullscreen' },
  render: ({ theme }) => html`
    <div style="display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: 1rem; padding: 1rem">
      <traffic-chart theme=${theme} src=${storySrc('quickstats')} style="grid-column: 1 / -1"></traffic-chart>
      <live-counter theme=${theme} src=${storySrc('quickstats')} compare="typical"></live-counter>
      <live-counter theme=${theme} src=${storySrc('quickstats')} metric="search"></live-counter>
      <live-counter theme=${theme} src=${storySrc('quickstats')} metric="social"></live-counter>
      <top-pages theme=${theme} src=${storySrc('toppages')} style="grid-column: 1 / -1"></top-pages>
      <geo-list theme=${theme} src=${storySrc('top_geo')} segment="countries"></geo-list>
      <geo-list theme=${theme} src=${storySrc('top_geo')} segment="cities"></geo-list>
      <referrer-bars theme=${theme} src=${storySrc('referrers')}></referrer-bars>
      <referrer-bars theme=${theme} src=${storySrc('referrers')} grouped></referrer-bars>
      <traffic-sources theme=${theme} src=${storySrc('quickstats')}></traffic-sources>
      <engagement-histogram theme=${theme} src=${storySrc('quickstats')}></engagement-histogram>
      <platform-split theme=${theme} src=${storySrc('quickstats')}></platform-split>
      <summary-stats theme=${theme} src=${storySrc('summary', { keys: 'pagetimer,time_spent,referrer' })}></summary-stats>
      <headline-tests theme=${theme} src=${storySrc('raw_data')} page-size="3" style="grid-column: 1 / -1"></headline-tests>
    </div>`,
};
export default meta;

type Story = StoryObj<DashboardArgs>;

export const Dashboard: Story = {};

export const DashboardDark: Story = {
  args: { theme: 'dark' },
  decorators: [(story) => darkPage(story())],
};
