import {Args} from '@oclif/core'
import {addMarkerImage} from '../../../../maps/markers.js'
import {BaseCommand} from '../../../base.js'

export default class MapsMarkersAdd extends BaseCommand<typeof MapsMarkersAdd> {
  static description = 'Upload a marker image for static maps (`markers=icon:ID|...`): PNG, JPEG or SVG, scaled to fit 64×64.'
  static examples = ['<%= config.bin %> maps markers add store ./store-pin.png']
  static args = {
    id: Args.string({description: 'marker id (letters, digits, _ and -)', required: true}),
    file: Args.string({description: 'image file', required: true}),
  }

  async run(): Promise<void> {
    const {args} = await this.parse(MapsMarkersAdd)
    const config = this.loadConfig()
    const {id, width, height} = await addMarkerImage(config.dataDir, args.id, args.file)
    this.log(`marker ${id}: ${width}×${height} px, use markers=icon:${id}|<lat>,<lng>`)
  }
}
