import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../../../../i18n';
import { NevFuelCellCard, NevSupercapacitorCard } from '../NevPowerSources';
import { fuelCellOf, stacksOf, supercapacitorOf } from '../nevModel';

const FUEL_2016 = {
  type: 'FuelCell', voltage_v: 320.5, current_a: 98.2, h2_consumption_kg_per_100km: 8.25,
  probe_temps_c: [61, 'abnormal', 64, 58], max_h2_temp_c: 35.5, max_h2_temp_probe: 2, max_h2_concentration_ppm: 120,
  max_h2_concentration_sensor: 3, max_h2_pressure_mpa: 31.2, max_h2_pressure_sensor: 1, dcdc: 1,
};
const FUEL_2025 = {
  type: 'FuelCell2025', max_h2_temp_c: 36, max_h2_temp_probe: 4, max_h2_concentration: 0.0125,
  max_h2_concentration_sensor: 2, max_h2_pressure_mpa: 33.5, max_h2_pressure_sensor: 1, dcdc: 2, h2_remaining_pct: 64,
  dcdc_controller_temp_c: 47,
};

describe('fuel cell (GB/T 32960 0x03, both editions; 2025 0x30 stacks)', () => {
  it('reads the 2016 block with its probes spread, abnormal probes left out, the concentration in ppm', () => {
    const cell = fuelCellOf(FUEL_2016);
    expect(cell).toMatchObject({ voltageV: 320.5, currentA: 98.2, h2ConsumptionKgPer100km: 8.25, maxH2Concentration: 120,
      concentrationInPpm: true, dcdc: 1, h2RemainingPct: null });
    expect(cell?.probes).toEqual({ max: 64, min: 58, count: 4 });
  });
  it('reads the 2025 block: hydrogen remaining, the controller temperature, a concentration without unit', () => {
    expect(fuelCellOf(FUEL_2025)).toMatchObject({ voltageV: null, h2RemainingPct: 64, dcdcControllerTempC: 47,
      maxH2Concentration: 0.0125, concentrationInPpm: false, probes: { max: null, min: null, count: 0 } });
    expect(fuelCellOf(null)).toBeNull();
    expect(fuelCellOf([1, 2])).toBeNull();
  });
  it('lists the stacks in order with the hottest coolant outlet, an invalid reading as none', () => {
    expect(stacksOf([{ number: 2, voltage_v: 301.2, current_a: 'invalid', h2_inlet_pressure_kpa: 150.5,
      air_inlet_pressure_kpa: 130, air_inlet_temp_c: 35, coolant_outlet_temps_c: [66, 71, 'abnormal'] }, 'x'])).toEqual([
      { number: 2, voltageV: 301.2, currentA: null, h2InletPressureKpa: 150.5, airInletPressureKpa: 130, airInletTempC: 35,
        coolantOutletMaxC: 71 }]);
    expect(stacksOf(null)).toEqual([]);
  });
});

describe('supercapacitor (2025 0x31 and 0x32)', () => {
  it('takes the terminal\'s extremes with their system and cell', () => {
    const cap = supercapacitorOf({ number: 1, voltage_v: 380.2, current_a: -12.5, cell_voltages_v: [2.7, 2.71], probe_temps_c: [30] },
      { max_voltage_system: 1, max_voltage_cell: 2, max_cell_voltage_v: 2.71, min_voltage_system: 1, min_voltage_cell: 1,
        min_cell_voltage_v: 2.7, max_temp_system: 1, max_temp_probe: 1, max_temp_c: 30, min_temp_system: 1,
        min_temp_probe: 1, min_temp_c: 30 });
    expect(cap).toMatchObject({ voltageV: 380.2, currentA: -12.5, cells: 2, probes: 1,
      maxCellVoltage: { value: 2.71, system: 1, no: 2 }, minTemp: { value: 30, system: 1, no: 1 } });
  });
  it('reads the extremes from the cells when the terminal sent none; nothing at all is no card', () => {
    const cap = supercapacitorOf({ number: 3, voltage_v: 380.2, current_a: 'invalid', cell_voltages_v: [2.7, 'invalid', 2.75],
      probe_temps_c: [] }, null);
    expect(cap?.maxCellVoltage).toEqual({ value: 2.75, system: 3, no: null });
    expect(cap?.maxTemp).toEqual({ value: null, system: 3, no: null });
    expect(supercapacitorOf(null, undefined)).toBeNull();
  });
});

describe('the cards', () => {
  it('show nothing for a battery-electric vehicle', () => {
    const { container } = render(<><NevFuelCellCard state={{ fuelCell: null }} /><NevSupercapacitorCard state={{}} /></>);
    expect(container.innerHTML).toBe('');
  });
  it('show the fuel cell, its stacks and the supercapacitor with their units', () => {
    render(<>
      <NevFuelCellCard state={{ fuelCell: FUEL_2025, fuelCellStacks: [{ number: 1, voltage_v: 312.4, current_a: 101.5,
        h2_inlet_pressure_kpa: 152, air_inlet_pressure_kpa: 131.5, air_inlet_temp_c: 38, coolant_outlet_temps_c: [66, 67] }] }} />
      <NevSupercapacitorCard state={{ supercapacitor: { number: 1, voltage_v: 380.2, current_a: 5, cell_voltages_v: [2.7],
        probe_temps_c: [31] } }} />
    </>);
    expect(screen.getByTestId('nev-h2Remaining').textContent).toBe('64 %');
    expect(screen.getByTestId('nev-maxH2Pressure').textContent).toMatch(/^33\.5 MPa .*1/);
    expect(screen.getByTestId('nev-stacks').textContent).toContain('312.4 V');
    expect(screen.getByTestId('nev-stacks').textContent).toContain('67 ℃');
    expect(screen.getByTestId('nev-supercap-voltage').textContent).toBe('380.2 V');
    expect(screen.getByTestId('nev-supercap-maxCellVoltage').textContent).toBe('2.7 V'); // no extremes sent: no cell named
  });
});
